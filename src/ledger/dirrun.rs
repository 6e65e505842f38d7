//! Which ledgered files a run of a directory takes (`go test ./...`, `pytest tests/`, `mvn
//! package`, a CI system's workflow directory), in one place: the check that turns a
//! directory run into runs of its files and the store's query for those files both read the
//! same `DirRun`, so what is fetched and what is judged cannot drift apart.
//!
//! Why the store needs it: a partial view asks the store for the files under a directory, and
//! fetching every row under it made a directory run late in a session read (and parse) every
//! file the session wrote in the project. The view asks instead for the files a run takes, by
//! name (`pom.xml`), suffix (`.go`) or prefix and suffix (`test_*.py`); the store finds them
//! through its name and extension indexes and reads the bodies of those alone.

use crate::scan::Language;

/// The files a run of a directory takes: by name, then by place under the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirRun<'a> {
    /// Exact file names (`pom.xml`, `conftest.py`).
    pub names: Vec<&'a str>,
    /// Name endings (`.go`, `.gradle.kts`, `_test.py`).
    pub suffixes: Vec<&'a str>,
    /// Names with this start and this end (`test_` … `.py`).
    pub affixes: Vec<(&'a str, &'a str)>,
    /// Only files directly in the directory (a CI system reads its workflow directory only).
    pub direct: bool,
    /// Files below a directory of this name are not taken (Go never compiles `testdata`).
    pub skip: Option<&'a str>,
}

/// The names of the test files jest and vitest collect by default (`*.test.*`, `*.spec.*`).
const NODE_TESTS: &[&str] = &[
    ".test.js",
    ".test.ts",
    ".test.mjs",
    ".test.cjs",
    ".test.jsx",
    ".test.tsx",
    ".spec.js",
    ".spec.ts",
    ".spec.mjs",
    ".spec.cjs",
    ".spec.jsx",
    ".spec.tsx",
];

/// Separates the directory and the parts of a `DirRun` in a view's miss key: a path and a file
/// name cannot hold a NUL, so the key cannot be mistaken for a path or split anywhere else.
const SEP: char = '\0';

impl DirRun<'static> {
    /// What a run of a directory in `language` takes; `None`: nothing (the run is no file's).
    pub fn of(language: Option<Language>) -> Option<DirRun<'static>> {
        let run = |names: &[&'static str], suffixes: &[&'static str]| DirRun {
            names: names.to_vec(),
            suffixes: suffixes.to_vec(),
            affixes: Vec::new(),
            direct: false,
            skip: None,
        };
        Some(match language? {
            // The workflow files of the directory itself.
            Language::CiWorkflow => DirRun {
                direct: true,
                ..run(&[], &[".yml", ".yaml"])
            },
            // pytest collects `conftest.py` and test modules at any depth.
            Language::Python => DirRun {
                affixes: vec![("test_", ".py")],
                ..run(&["conftest.py"], &["_test.py"])
            },
            // Every list and module CMake may include, every Gradle script of the build.
            Language::CMake => run(&["CMakeLists.txt"], &[".cmake"]),
            Language::Gradle => run(&[], &[".gradle", ".gradle.kts"]),
            // The POMs of the modules a build includes.
            Language::Maven => run(&["pom.xml"], &[]),
            // The projects a build of the directory builds, and the files MSBuild imports by
            // convention (`Directory.Build.props`, `Directory.Build.targets`).
            Language::MsBuild => run(
                &[],
                &[".csproj", ".fsproj", ".vbproj", ".props", ".targets"],
            ),
            // The Taskfiles a Taskfile includes.
            Language::Taskfile => run(crate::scan::TASKFILES, &[]),
            // The justfiles a justfile imports and the modules it loads.
            Language::Justfile => run(crate::scan::JUSTFILES, &[".just"]),
            // A package and the packages below it; `testdata` is never compiled.
            Language::Go => DirRun {
                skip: Some("testdata"),
                ..run(&[], &[".go"])
            },
            // A crate's sources, tests, examples and benches; its build output is not source.
            Language::Rust => DirRun {
                skip: Some("target"),
                ..run(&[], &[".rs"])
            },
            // The test files jest and vitest collect; installed packages are not the project's.
            Language::Node => DirRun {
                skip: Some("node_modules"),
                ..run(&[], NODE_TESTS)
            },
            // RSpec's specs and minitest's tests.
            Language::Ruby => run(&[], &["_spec.rb", "_test.rb"]),
            _ => return None,
        })
    }
}

impl<'a> DirRun<'a> {
    /// Whether a file of this name is taken (wherever it is).
    pub fn takes_name(&self, name: &str) -> bool {
        self.names.contains(&name)
            || self.suffixes.iter().any(|s| name.ends_with(s))
            || self
                .affixes
                .iter()
                .any(|(p, s)| name.starts_with(p) && name.ends_with(s))
    }

    /// Whether the file at `path` is taken by a run of the directory `prefix` (which ends
    /// with `/`): under it, named as the run takes, in a place it looks.
    pub fn takes(&self, prefix: &str, path: &str) -> bool {
        let Some(rel) = path.strip_prefix(prefix) else {
            return false;
        };
        let (dirs, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if name.is_empty() || (self.direct && !dirs.is_empty()) {
            return false;
        }
        if let Some(skip) = self.skip
            && dirs.split('/').any(|d| d == skip)
        {
            return false;
        }
        self.takes_name(name)
    }

    /// The view's miss key of a run of `prefix`: the directory (with its `/`), then each part.
    pub fn key(&self, prefix: &str) -> String {
        let mut key = prefix.to_string();
        let mut part = |tag: char, text: &str| {
            key.push(SEP);
            key.push(tag);
            key.push_str(text);
        };
        for n in &self.names {
            part('n', n);
        }
        for s in &self.suffixes {
            part('s', s);
        }
        // A file name holds no `/`: it separates the start from the end.
        for (p, s) in &self.affixes {
            part('a', &format!("{p}/{s}"));
        }
        if self.direct {
            part('d', "");
        }
        if let Some(x) = self.skip {
            part('x', x);
        }
        key
    }

    /// The directory (with its `/`) and the run of a miss key made by `key`; `None` for any
    /// other key (a path).
    pub fn parse(key: &'a str) -> Option<(&'a str, DirRun<'a>)> {
        let mut parts = key.split(SEP);
        let prefix = parts.next().filter(|p| p.ends_with('/'))?;
        let mut run = DirRun {
            names: Vec::new(),
            suffixes: Vec::new(),
            affixes: Vec::new(),
            direct: false,
            skip: None,
        };
        let mut any = false;
        for part in parts {
            any = true;
            let mut chars = part.chars();
            let tag = chars.next()?;
            let text = chars.as_str();
            match tag {
                'n' => run.names.push(text),
                's' => run.suffixes.push(text),
                'a' => run.affixes.push(text.split_once('/')?),
                'd' if text.is_empty() => run.direct = true,
                'x' => run.skip = Some(text),
                _ => return None,
            }
        }
        any.then_some((prefix, run))
    }
}

/// The extension the store indexes a file by: the text after the last `.` of its name (`go`
/// for `main.go` and for `.go`, `kts` for `build.gradle.kts`), empty when it has none. A
/// name that ends with a suffix holding a `.` has the suffix's extension.
pub fn extension(name: &str) -> &str {
    name.rsplit_once('.').map_or("", |(_, x)| x)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LANGUAGES: &[Language] = &[
        Language::CiWorkflow,
        Language::Python,
        Language::CMake,
        Language::Gradle,
        Language::Maven,
        Language::MsBuild,
        Language::Taskfile,
        Language::Go,
    ];

    #[test]
    fn every_run_round_trips_through_its_key() {
        for l in LANGUAGES {
            let run = DirRun::of(Some(*l)).unwrap();
            let key = run.key("/p/x/");
            assert_eq!(DirRun::parse(&key), Some(("/p/x/", run.clone())), "{l:?}");
        }
        // A path is no run's key, nor is a key with a part this version does not write.
        assert_eq!(DirRun::parse("/p/x/"), None);
        assert_eq!(DirRun::parse("/p/x/a.go"), None);
        assert_eq!(DirRun::parse("/p/x/\0q.go"), None);
        assert_eq!(DirRun::parse("/p/x/\0atest_.py"), None);
        assert!(DirRun::of(Some(Language::Shell)).is_none());
        assert!(DirRun::of(None).is_none());
    }

    #[test]
    fn every_suffix_has_an_extension_the_store_can_seek() {
        // The store finds suffixes through the extension index; a suffix without a `.` would
        // fall back to reading every row under the directory.
        for l in LANGUAGES {
            let run = DirRun::of(Some(*l)).unwrap();
            for s in run
                .suffixes
                .iter()
                .chain(run.affixes.iter().map(|(_, s)| s))
            {
                assert!(s.contains('.'), "{l:?}: {s}");
                assert_eq!(extension(&format!("x{s}")), extension(s));
            }
        }
        assert_eq!(extension("build.gradle.kts"), "kts");
        assert_eq!(extension(".go"), "go");
        assert_eq!(extension("Makefile"), "");
    }

    #[test]
    fn a_run_takes_by_name_and_place() {
        let go = DirRun::of(Some(Language::Go)).unwrap();
        assert!(go.takes("/p/", "/p/a.go"));
        assert!(go.takes("/p/", "/p/x/y/a.go"));
        assert!(!go.takes("/p/", "/p/testdata/a.go"));
        assert!(!go.takes("/p/", "/p/x/testdata/y/a.go"));
        assert!(go.takes("/p/", "/p/testdatax/a.go"));
        assert!(!go.takes("/p/", "/q/a.go"));
        assert!(!go.takes("/p/", "/p/a.gox"));
        let ci = DirRun::of(Some(Language::CiWorkflow)).unwrap();
        assert!(ci.takes("/w/", "/w/ci.yml"));
        assert!(!ci.takes("/w/", "/w/sub/ci.yml"));
        let py = DirRun::of(Some(Language::Python)).unwrap();
        for taken in ["conftest.py", "test_a.py", "a_test.py", "x/test_.py"] {
            assert!(py.takes("/t/", &format!("/t/{taken}")), "{taken}");
        }
        for left in ["mod.py", "test_a.pyc", "test.py", "conftest.pyi"] {
            assert!(!py.takes("/t/", &format!("/t/{left}")), "{left}");
        }
        let task = DirRun::of(Some(Language::Taskfile)).unwrap();
        assert!(task.takes("/", "/x/Taskfile.yml"));
        assert!(!task.takes("/", "/x/other.yml"));
    }
}

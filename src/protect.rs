//! Protection by identity: whether a change to one path reaches a protected resource —
//! palisade's policy, state and binary, Claude Code's hook settings and session transcripts —
//! however the path is spelled. A target is compared by where it really is (symlinks, dangling
//! ones too, and `..` resolved), by what it is (a hard link shares the inode of a protected
//! file), by what a glob could expand to, and by what it contains (deleting, moving or
//! re-permissioning a directory changes every protected file below it; extracting or copying
//! into it can replace them). One small entry point, `reaches`, is called once per changed
//! path; it touches the filesystem only when the scope follows symlinks (not in replay). The
//! (device, inode) of protected files are read only when a changed file has other hard links,
//! so an ordinary write pays one `stat` beyond resolving its path.

use crate::call::{ProtectedPath, Scope};
use crate::glob::{Glob, GlobKind};
use crate::paths::{fold, resolve_existing_prefix};
use std::path::{Path, PathBuf};

impl Scope {
    /// The protected entry covering `path`, if any.
    pub fn protected(&self, path: &Path) -> Option<&ProtectedPath> {
        self.protected.iter().find(|p| covers(p, path))
    }
}

/// What a call does to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Rewrites the content in place (`>`, `sed -i`, Write, Edit).
    Write,
    /// Deletes or truncates it (`rm`, `rm -r`, `find -delete`, `shred`).
    Delete,
    /// Moves it away or replaces it by a move (`mv`, `rename`).
    Move,
    /// Changes its mode, owner or attributes (`chmod`, `chown`, `chattr`, `setfacl`).
    Mode,
    /// Makes a (hard or symbolic) link named by it, or hard-links it elsewhere.
    Link,
    /// Lands files in it: the destination of `cp -r`, `rsync`, `tar -C`, `unzip -d`,
    /// `git apply --directory`, `patch -d`.
    Into,
}

impl Change {
    fn verb(self) -> &'static str {
        match self {
            Change::Write => "change",
            Change::Delete => "delete",
            Change::Move => "move",
            Change::Mode => "re-permission",
            Change::Link => "link",
            Change::Into => "write into",
        }
    }
}

/// What protection says about one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// The change reaches a protected resource.
    Deny(String),
    /// The target cannot be resolved statically and could reach one.
    Ask(String),
}

/// Longest glob expansion looked at on disk, and deepest directory walk for hard links.
const MAX_EXPANSION: usize = 4096;

/// Whether `change` applied to `target` (resolved or lexical, as the extractors give it)
/// reaches a protected resource of `scope`. `None`: it does not.
pub fn reaches(scope: &Scope, target: &Path, change: Change) -> Option<Reach> {
    let text = target.to_string_lossy();
    if text.contains(['$', '`']) {
        return dynamic(scope, target, &text);
    }
    if text.contains(['*', '?', '[']) {
        return glob(scope, &text, change);
    }
    let mut candidates = vec![fold(target)];
    // A delete or move of a link removes or moves the link, not what it points to.
    let link_itself = matches!(change, Change::Delete | Change::Move)
        && scope.paths.follow_symlinks
        && std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink());
    if scope.paths.follow_symlinks && !link_itself {
        let real = resolve_existing_prefix(target);
        if real != candidates[0] {
            candidates.push(real);
        }
    }
    for c in &candidates {
        if let Some(r) = by_path(scope, c, change) {
            return Some(r);
        }
    }
    if scope.paths.follow_symlinks && matches!(change, Change::Write | Change::Mode) {
        return hard_link(scope, candidates.last().unwrap_or(&candidates[0]), change);
    }
    None
}

/// A protected entry covering `path` itself (the file, or a file in a protected directory).
pub fn covers(p: &ProtectedPath, path: &Path) -> bool {
    if let Some(ext) = pattern_ext(p) {
        let dir = p.path.parent().unwrap_or(Path::new("/"));
        return path.starts_with(dir) && path.extension().is_some_and(|e| e == ext);
    }
    if p.suffix {
        path.ends_with(&p.path)
    } else if p.subtree {
        path.starts_with(&p.path)
    } else {
        path == p.path
    }
}

/// `dir/*.jsonl`: every file with that extension anywhere below `dir` (session transcripts).
fn pattern_ext(p: &ProtectedPath) -> Option<&str> {
    p.path
        .file_name()?
        .to_str()?
        .strip_prefix("*.")
        .filter(|_| p.subtree)
}

/// A directory that holds (or would hold) the protected entry: deleting, moving or replacing
/// it changes the entry.
fn holds(p: &ProtectedPath, dir: &Path) -> bool {
    if let Some(_ext) = pattern_ext(p) {
        let base = p.path.parent().unwrap_or(Path::new("/"));
        // Any directory down to the transcripts' base, and any directory below it: a
        // directory has no extension (a file being changed is judged by `covers`).
        return base.starts_with(dir) || dir.starts_with(base) && dir.extension().is_none();
    }
    if p.suffix {
        // `.claude/settings.json` is held by every directory named `.claude`.
        let first = p.path.components().next();
        return p.path.components().count() > 1
            && first.is_some_and(|c| dir.file_name() == Some(c.as_os_str()));
    }
    p.path.starts_with(dir) && p.path != dir
}

/// A directory too broad to refuse every change of (the home, the project root and above):
/// other packs judge those; only deleting or moving it is refused here.
fn broad(scope: &Scope, dir: &Path) -> bool {
    scope.home().starts_with(dir) || scope.project_root.starts_with(dir)
}

fn by_path(scope: &Scope, c: &Path, change: Change) -> Option<Reach> {
    if let Some(p) = scope.protected.iter().find(|p| covers(p, c)) {
        return Some(Reach::Deny(format!(
            "it would {} {} ({})",
            change.verb(),
            c.display(),
            p.what
        )));
    }
    // Deleting or moving the whole project is for the other packs to judge; its own
    // settings files go with it, but that is not an attack on the firewall.
    let project_level = |p: &ProtectedPath| {
        scope.project_root != scope.home() && p.path.starts_with(&scope.project_root)
    };
    let p = scope
        .protected
        .iter()
        .find(|p| holds(p, c) && !(project_level(p) && broad(scope, c)))?;
    let deny = |why: &str| {
        Some(Reach::Deny(format!(
            "it would {} {}, which holds {} ({why})",
            change.verb(),
            c.display(),
            p.what
        )))
    };
    match change {
        Change::Delete | Change::Move => deny("everything inside goes with it"),
        Change::Write => None,
        Change::Into if scope.home().starts_with(c) => Some(Reach::Ask(format!(
            "it writes into {}, which holds {}; palisade cannot tell which files land there",
            c.display(),
            p.what
        ))),
        _ if broad(scope, c) => None,
        Change::Into => deny("files landing there can replace it"),
        Change::Link => deny("a link there replaces or redirects it"),
        Change::Mode => deny("a directory's mode decides who can reach it"),
    }
}

/// A file with other hard links shares its content with each of them: the same inode as a
/// protected file is that file; an unknown extra link cannot be told apart, so it is asked.
fn hard_link(scope: &Scope, real: &Path, change: Change) -> Option<Reach> {
    let files = &scope.files;
    let file = files.identity(real)?;
    if !file.is_file || file.links < 2 {
        return None;
    }
    let same = |path: &Path| {
        files
            .identity(path)
            .is_some_and(|m| m.is_file && m.id == file.id)
    };
    let mut unknown = false;
    for p in &scope.protected {
        if p.suffix {
            let concrete = scope.project_root.join(&p.path);
            if same(&concrete) {
                return Some(alias(real, &concrete, &p.what, change));
            }
            continue;
        }
        let base = match pattern_ext(p) {
            Some(_) => p.path.parent().unwrap_or(Path::new("/")).to_path_buf(),
            None => p.path.clone(),
        };
        if same(&base) {
            return Some(alias(real, &base, &p.what, change));
        }
        if p.subtree || pattern_ext(p).is_some() {
            match find_inode(scope, &base, file.id) {
                Search::Found(found) => return Some(alias(real, &found, &p.what, change)),
                Search::Absent => {}
                Search::Unknown => unknown = true,
            }
        }
    }
    // Every protected file was looked at and none is this one: its other names are the
    // user's own (pnpm's store, `cp -al` trees, build outputs).
    unknown.then(|| {
        Reach::Ask(format!(
            "{} has {} hard links; a change to it changes every one of them, and palisade cannot tell where they are",
            real.display(),
            file.links
        ))
    })
}

/// What a bounded search for an inode found.
enum Search {
    Found(PathBuf),
    Absent,
    /// The search stopped at its bound before looking everywhere.
    Unknown,
}

fn alias(real: &Path, of: &Path, what: &str, change: Change) -> Reach {
    Reach::Deny(format!(
        "it would {} {}, a hard link of {} ({what})",
        change.verb(),
        real.display(),
        of.display()
    ))
}

/// A file with inode `id` below `dir` in the scope's file view (bounded walk, symlinks not
/// followed).
fn find_inode(scope: &Scope, dir: &Path, id: (u64, u64)) -> Search {
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        // A directory that cannot be listed (there is none) holds no link.
        for (path, m) in scope
            .files
            .entries(&d, MAX_EXPANSION + 1)
            .unwrap_or_default()
        {
            seen += 1;
            if seen > MAX_EXPANSION {
                return Search::Unknown;
            }
            if m.is_dir {
                stack.push(path);
            } else if m.id == id {
                return Search::Found(path);
            }
        }
    }
    Search::Absent
}

/// A path built at run time (`"$(echo ~/.claude/settings.json)"`, `"$D/x"`): asked when the
/// text names something protected, since the real target is unknown until it runs.
fn dynamic(scope: &Scope, target: &Path, text: &str) -> Option<Reach> {
    // Whole path components, so `palisade-test` or `my.claude.txt` are not taken for ours.
    const NAMES: &[&str] = &[
        ".claude",
        "palisade",
        ".palisade.yaml",
        "palisade.yaml",
        "audit.jsonl",
        "settings.json",
        "settings.local.json",
    ];
    const VARIABLES: &[&str] = &["CLAUDE_CONFIG_DIR", "PALISADE_DATA_DIR", "PALISADE_CONFIG"];
    // The directory before the first part known only at run time is real: its own names say
    // nothing of what the rest makes (a project in `~/src/palisade` writing `$OUT/x`), so it
    // is judged as a directory files land in.
    let parts: Vec<_> = target.components().collect();
    let at = parts
        .iter()
        .position(|c| c.as_os_str().to_string_lossy().contains(['$', '`']))
        .unwrap_or(0);
    let known: PathBuf = parts[..at].iter().collect();
    let unknown: PathBuf = parts[at..].iter().collect();
    let unknown = unknown.to_string_lossy();
    let hint = VARIABLES.iter().find(|v| unknown.contains(*v)).or_else(|| {
        unknown
            .split(['/', ',', '(', ')', ' ', '+'])
            .map(|c| c.trim_matches(|q| matches!(q, '"' | '\'' | '{' | '}' | '[' | ']')))
            .find_map(|c| NAMES.iter().find(|n| **n == c))
    });
    if let Some(hint) = hint {
        return Some(Reach::Ask(format!(
            "its target {text} is only known when it runs, and it names `{hint}`, which palisade protects"
        )));
    }
    let holds = known.parent().is_some() && by_path(scope, &known, Change::Into).is_some();
    holds.then(|| {
        Reach::Ask(format!(
            "its target {text} is only known when it runs, and it is in {}, which holds files palisade protects",
            known.display()
        ))
    })
}

/// A glob target: refused when the pattern can match a protected path or a directory holding
/// one; on disk, every expansion is judged as a path too.
fn glob(scope: &Scope, text: &str, change: Change) -> Option<Reach> {
    let compiled = PathPattern::new(text);
    for p in &scope.protected {
        let candidates: Vec<PathBuf> = if p.suffix {
            vec![scope.project_root.join(&p.path)]
        } else {
            vec![p.path.clone()]
        };
        for cand in candidates {
            for a in cand.ancestors() {
                if a.as_os_str().len() > 1 && compiled.matches(a) {
                    let r = if a == cand {
                        by_path(scope, a, change)
                    } else {
                        by_path(scope, a, change).or_else(|| by_path(scope, &cand, change))
                    };
                    if r.is_some() {
                        return r;
                    }
                }
            }
        }
        // `dir/*` inside a protected directory: the pattern's head matches the directory.
        if p.subtree && pattern_ext(p).is_none() {
            let n = p
                .path
                .components()
                .filter(|c| matches!(c, std::path::Component::Normal(_)))
                .count();
            let parts: Vec<&str> = text.split('/').filter(|s| !s.is_empty()).collect();
            if parts.len() > n && glob_matches(&parts[..n].join("/"), &p.path) {
                return Some(Reach::Deny(format!(
                    "the pattern {text} ranges over {} ({})",
                    p.path.display(),
                    p.what
                )));
            }
        }
        // `*/.claude/settings.json` anywhere: match the pattern's tail against the suffix.
        if p.suffix {
            let n = p.path.components().count();
            let parts: Vec<&str> = text.split('/').collect();
            if parts.len() >= n {
                let tail = parts[parts.len() - n..].join("/");
                if glob_matches(&tail, &p.path) {
                    return Some(Reach::Deny(format!(
                        "the pattern {text} can match {} ({})",
                        p.path.display(),
                        p.what
                    )));
                }
            }
        }
    }
    if scope.paths.follow_symlinks {
        for hit in expand(scope, text) {
            if let Some(r) = reaches(scope, &hit, change) {
                return Some(r);
            }
        }
    }
    None
}

/// True when the shell pattern `pattern` matches `path` component by component; as in the
/// shell, a wildcard does not match a leading dot.
pub(crate) fn glob_matches(pattern: &str, path: &Path) -> bool {
    PathPattern::new(pattern).matches(path)
}

/// A shell pattern split at `/`, each component compiled once, for matching against many
/// paths: `cat 'select * from t'` is a pattern matched against every secret location and
/// the directories above each, and compiling it per candidate was half of such a call.
pub(crate) struct PathPattern {
    parts: Vec<Component>,
}

enum Component {
    /// No wildcard: the name itself.
    Literal(String),
    /// `leading_dot`: the pattern starts with a dot, so it may match a name that does.
    Wild {
        glob: Option<Glob>,
        leading_dot: bool,
    },
}

impl PathPattern {
    /// Compiles `pattern` (brackets read as `?`, see [`brackets_to_any`]).
    pub(crate) fn new(pattern: &str) -> PathPattern {
        let parts = pattern
            .split('/')
            .filter(|p| !p.is_empty())
            .map(|part| {
                let part = brackets_to_any(part);
                if part.contains(['*', '?']) {
                    Component::Wild {
                        leading_dot: part.starts_with('.'),
                        glob: Glob::new(&part, GlobKind::Path).ok(),
                    }
                } else {
                    Component::Literal(part)
                }
            })
            .collect();
        PathPattern { parts }
    }

    /// True when the pattern matches `path`, one component for each of its normal components.
    pub(crate) fn matches(&self, path: &Path) -> bool {
        let mut names = path.components().filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(n),
            _ => None,
        });
        for part in &self.parts {
            let Some(name) = names.next() else {
                return false;
            };
            let name = name.to_string_lossy();
            let hit = match part {
                Component::Literal(l) => *l == name,
                Component::Wild { glob, leading_dot } => {
                    (!name.starts_with('.') || *leading_dot)
                        && glob.as_ref().is_some_and(|g| g.matches(&name))
                }
            };
            if !hit {
                return false;
            }
        }
        names.next().is_none()
    }
}

/// `[abc]` as `?`: a bracket expression matches one character (the set itself is not kept,
/// which can only widen the match).
fn brackets_to_any(pat: &str) -> String {
    let mut out = String::new();
    let mut chars = pat.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '[' {
            let mut closed = false;
            for d in chars.by_ref() {
                if d == ']' {
                    closed = true;
                    break;
                }
            }
            out.push(if closed { '?' } else { '[' });
        } else {
            out.push(c);
        }
    }
    out
}

/// What a `find` whose name tests are `names` selects under `start` (resolved; `printed` is
/// the start as find prints it, for `-path` and `-regex`) among the protected entries: each
/// protected file or directory that passes every test, and with `whole_dirs` (a recursive
/// remover run on what it selects) each directory between the start and one of them that
/// does. The entries of a protected directory are those the file view lists (bounded), and
/// one standing for any file of a protected pattern (`projects/x.jsonl`). What the file view
/// knows is not there cannot be deleted (`find . -name '*.json' -delete` in a project with no
/// `.claude/settings.json`).
pub fn selected_by_name(
    scope: &Scope,
    start: &Path,
    printed: &str,
    names: &[crate::call::NameTest],
    whole_dirs: bool,
) -> Vec<PathBuf> {
    let start = fold(start);
    let mut entries: Vec<PathBuf> = Vec::new();
    for p in &scope.protected {
        if p.suffix {
            entries.push(start.join(&p.path));
        } else if let Some(ext) = pattern_ext(p) {
            let dir = p.path.parent().unwrap_or(Path::new("/"));
            entries.push(dir.join(format!("x.{ext}")));
            entries.extend(listed_below(scope, dir));
        } else {
            entries.push(p.path.clone());
            if p.subtree {
                entries.extend(listed_below(scope, &p.path));
            }
        }
    }
    let passes = |path: &Path| {
        let shown = match path.strip_prefix(&start) {
            Ok(rest) if rest.as_os_str().is_empty() => printed.to_string(),
            Ok(rest) => format!("{}/{}", printed.trim_end_matches('/'), rest.display()),
            Err(_) => return false,
        };
        names.iter().all(|t| name_test_passes(t, path, &shown))
    };
    let mut out = Vec::new();
    for e in entries
        .iter()
        .filter(|e| e.starts_with(&start) && scope.files.may_exist(e))
    {
        if passes(e) && !out.contains(e) {
            out.push(e.clone());
        }
        if whole_dirs {
            for a in e.ancestors().skip(1).take_while(|a| a.starts_with(&start)) {
                if passes(a) && !out.iter().any(|o| o == a) {
                    out.push(a.to_path_buf());
                }
            }
        }
    }
    out
}

/// The paths below `dir` in the scope's file view (a bounded walk, links not followed).
pub fn listed_below(scope: &Scope, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for (path, m) in scope.files.entries(&d, MAX_EXPANSION).unwrap_or_default() {
            if out.len() >= MAX_EXPANSION {
                return out;
            }
            if m.is_dir {
                stack.push(path.clone());
            }
            out.push(path);
        }
    }
    out
}

/// The symbolic links below `dir` in the scope's file view (a bounded walk that does not
/// follow them; none in a lexical view).
pub fn links_below(scope: &Scope, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        for (path, m) in scope.files.entries(&d, MAX_EXPANSION).unwrap_or_default() {
            seen += 1;
            if seen > MAX_EXPANSION {
                return out;
            }
            if m.is_dir {
                stack.push(path);
            } else if m.is_link {
                out.push(path);
            }
        }
    }
    out
}

/// Whether `path` (shown by find as `shown`) passes one name test. A pattern the check cannot
/// read (a regex that does not compile) passes: it could select anything.
pub fn name_test_passes(t: &crate::call::NameTest, path: &Path, shown: &str) -> bool {
    use crate::call::NameMatch;
    let fold_case = |s: &str| {
        if t.case_insensitive {
            s.to_lowercase()
        } else {
            s.to_string()
        }
    };
    let glob = |text: &str| {
        // find's patterns are fnmatch's: `*` matches a leading dot (and, for `-path`, `/`),
        // `\c` is `c`, a bracket expression one character.
        let mut unescaped = String::new();
        let mut chars = t.pattern.chars();
        while let Some(c) = chars.next() {
            unescaped.push(if c == '\\' {
                chars.next().unwrap_or(c)
            } else {
                c
            });
        }
        Glob::new(&brackets_to_any(&fold_case(&unescaped)), GlobKind::Text)
            .is_ok_and(|g| g.matches(&fold_case(text)))
    };
    match t.on {
        NameMatch::Name => path.file_name().is_some_and(|n| glob(&n.to_string_lossy())),
        NameMatch::Path => glob(shown),
        NameMatch::Regex { extended } => {
            let body = if extended {
                t.pattern.clone()
            } else {
                emacs_to_extended(&t.pattern)
            };
            let flags = if t.case_insensitive { "(?is)" } else { "(?s)" };
            match regex::Regex::new(&format!("{flags}^(?:{body})$")) {
                Ok(re) => re.is_match(shown),
                Err(_) => true,
            }
        }
    }
}

/// An emacs (or POSIX basic) regex in the syntax of the `regex` crate: `\(`, `\)`, `\|`,
/// `\{`, `\}` group and repeat, their bare forms are literal.
fn emacs_to_extended(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(d @ ('(' | ')' | '|' | '{' | '}')) => out.push(d),
                Some(d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Expands a path glob against the scope's file view, one component at a time (bounded by
/// `MAX_EXPANSION` matches a component); nothing with a fixed view.
pub fn expand(scope: &Scope, text: &str) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::from("/")];
    for part in text.split('/').filter(|p| !p.is_empty()) {
        let mut next = Vec::new();
        if !part.contains(['*', '?', '[']) {
            next.extend(found.iter().map(|f| f.join(part)));
        } else if let Ok(g) = Glob::new(&brackets_to_any(part), GlobKind::Path) {
            for dir in &found {
                let Some(names) = scope.files.names(dir) else {
                    continue;
                };
                for name in names {
                    let name = name.to_string_lossy();
                    // As the shell does: `*` does not match a leading dot.
                    if name.starts_with('.') && !part.starts_with('.') {
                        continue;
                    }
                    if g.matches(&name) {
                        next.push(dir.join(name.as_ref()));
                    }
                }
            }
        }
        next.truncate(MAX_EXPANSION);
        found = next;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::PathResolver;

    fn scope(home: &Path, project: &Path, follow: bool) -> Scope {
        let guard = |path: PathBuf, subtree: bool, suffix: bool| ProtectedPath {
            path,
            what: "protected".into(),
            subtree,
            suffix,
        };
        Scope {
            paths: PathResolver {
                cwd: project.to_path_buf(),
                home: home.to_path_buf(),
                follow_symlinks: follow,
            },
            project_root: project.to_path_buf(),
            roots: vec![project.to_path_buf()],
            protected: vec![
                guard(home.join(".claude/settings.json"), false, false),
                guard(home.join(".local/share/palisade"), true, false),
                guard(home.join(".claude/projects/*.jsonl"), true, false),
                guard(PathBuf::from(".claude/settings.json"), false, true),
            ]
            .into(),
            files: Default::default(),
            lines: Default::default(),
        }
    }

    /// A path pattern matches component by component, as the shell expands it: one name per
    /// component, a wildcard not over a leading dot, brackets as one character.
    #[test]
    fn path_patterns_match_as_the_shell_expands() {
        let m = |pat: &str, path: &str| glob_matches(pat, Path::new(path));
        assert!(m("/h/.s*h/id_*", "/h/.ssh/id_rsa"));
        assert!(m("/h/.ssh/id_[re]*", "/h/.ssh/id_ed25519"));
        assert!(m("/h//.ssh/", "/h/.ssh"));
        assert!(!m("/h/*/id_rsa", "/h/.ssh/id_rsa"));
        assert!(!m("/h/.ssh", "/h/.ssh/id_rsa"));
        assert!(!m("/h/.ssh/id_rsa", "/h/.ssh"));
        assert!(!m("/h/p/select * from t", "/h/.ssh/id_rsa"));
        assert!(m("/h/p/select * from t", "/h/p/select a from t"));
        // One compiled pattern gives every path the answer a fresh one gives.
        let compiled = PathPattern::new("/h/.*/cred*");
        for path in [
            "/h/.aws/credentials",
            "/h/aws/credentials",
            "/h/.aws",
            "/h/.aws/c",
        ] {
            assert_eq!(
                compiled.matches(Path::new(path)),
                m("/h/.*/cred*", path),
                "{path}"
            );
        }
    }

    fn denied(s: &Scope, p: &str, c: Change) -> bool {
        matches!(reaches(s, Path::new(p), c), Some(Reach::Deny(_)))
    }

    /// Which protected entries a `find` selects by its name tests: by name (folded or not,
    /// fnmatch's escapes and brackets), by the path as find prints it, by emacs or extended
    /// regex; the directories on the way only for a recursive remover; in the disk's view,
    /// only entries that are there.
    #[test]
    fn find_name_tests_select_protected_entries() {
        use crate::call::{FileView, NameMatch, NameTest};
        let mut s = scope(Path::new("/h"), Path::new("/h/p"), false);
        s.files = FileView::lexical();
        let t = |on, case_insensitive, pattern: &str| NameTest {
            on,
            case_insensitive,
            pattern: pattern.into(),
        };
        let sel_in = |s: &Scope, start: &str, printed: &str, tests: &[NameTest], whole: bool| {
            selected_by_name(s, Path::new(start), printed, tests, whole)
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
        };
        let sel = |start: &str, printed: &str, tests: &[NameTest], whole: bool| {
            sel_in(&s, start, printed, tests, whole)
        };
        let settings = "/h/.claude/settings.json".to_string();
        let name = |p| [t(NameMatch::Name, false, p)];
        assert!(sel("/h/.claude", "/h/.claude", &name("*.json"), false).contains(&settings));
        assert!(
            sel(
                "/h/.claude",
                "/h/.claude",
                &name("settings\\.js[o]n"),
                false
            )
            .contains(&settings)
        );
        assert!(sel("/h/.claude", "/h/.claude", &name("*.md"), false).is_empty());
        assert!(sel("/h/.claude", "/h/.claude", &name("SETTINGS.JSON"), false).is_empty());
        let folded = [t(NameMatch::Name, true, "SETTINGS.JSON")];
        assert!(sel("/h/.claude", "/h/.claude", &folded, false).contains(&settings));
        // Every test must pass.
        let both = [name("*.json")[0].clone(), name("x*")[0].clone()];
        assert!(sel("/h/.claude", "/h/.claude", &both, false).is_empty());
        // A transcript stands for any `*.jsonl` below `projects`.
        assert_eq!(
            sel("/h/.claude/projects", "p", &name("*.jsonl"), false),
            ["/h/.claude/projects/x.jsonl"]
        );
        // The path as printed: the start as written.
        let path = [t(NameMatch::Path, false, "./.claude/*")];
        assert!(sel("/h", ".", &path, false).contains(&settings));
        let regex = |extended, p| [t(NameMatch::Regex { extended }, false, p)];
        let emacs = regex(false, ".*\\(settings\\|x\\)\\.json");
        assert!(sel("/h/.claude", "/h/.claude", &emacs, false).contains(&settings));
        let ere = regex(true, ".*(settings|x)\\.json");
        assert!(sel("/h/.claude", "/h/.claude", &ere, false).contains(&settings));
        assert!(sel("/h/.claude", "/h/.claude", &regex(false, ".*\\.md"), false).is_empty());
        // A regex the check cannot read could select anything.
        assert!(!sel("/h/.claude", "/h/.claude", &regex(true, "(("), false).is_empty());
        // A directory on the way counts for `rm -r`, not for `-delete`.
        let dir = name(".claude");
        assert!(sel("/h", "/h", &dir, false).is_empty());
        assert!(sel("/h", "/h", &dir, true).contains(&"/h/.claude".to_string()));
        // Outside the start, nothing; a project settings file could be anywhere below it.
        assert_eq!(
            sel("/h/p/src", "src", &name("*"), true),
            [
                "/h/p/src/.claude/settings.json",
                "/h/p/src/.claude",
                "/h/p/src"
            ]
        );
        // On disk, what is not there cannot be deleted.
        let mut disk = s.clone();
        disk.files = FileView::disk();
        assert!(sel_in(&disk, "/h/.claude", "/h/.claude", &name("*.json"), false).is_empty());
    }

    #[test]
    fn lexical_classes() {
        let s = scope(Path::new("/h"), Path::new("/h/p"), false);
        assert!(denied(&s, "/h/.claude/settings.json", Change::Write));
        assert!(denied(&s, "/h/.claude", Change::Delete));
        assert!(denied(&s, "/h/.claude", Change::Mode));
        assert!(denied(&s, "/h/.claude", Change::Into));
        assert!(denied(&s, "/h/.local", Change::Move));
        assert!(denied(&s, "/h/p/.claude", Change::Delete));
        assert!(denied(&s, "/h/.claude/setting?.json", Change::Write));
        assert!(denied(&s, "/h/.claude/projects/x/1.jsonl", Change::Write));
        assert!(denied(&s, "/h/.claude/projects/x", Change::Delete));
        assert!(denied(&s, "/h", Change::Delete));
        // Ordinary work.
        assert_eq!(reaches(&s, Path::new("/h/.claude"), Change::Write), None);
        assert_eq!(
            reaches(&s, Path::new("/h/.claude/commands/a.md"), Change::Write),
            None
        );
        assert_eq!(
            reaches(&s, Path::new("/h/p/src/settings.json"), Change::Write),
            None
        );
        assert_eq!(reaches(&s, Path::new("/h"), Change::Mode), None);
        assert_eq!(reaches(&s, Path::new("/h/p"), Change::Into), None);
        assert_eq!(
            reaches(
                &s,
                Path::new("/h/.claude/projects/x/memory/MEMORY.md"),
                Change::Write
            ),
            None
        );
        assert!(matches!(
            reaches(
                &s,
                Path::new("/h/p/$(echo ~/.claude/settings.json)"),
                Change::Write
            ),
            Some(Reach::Ask(_))
        ));
    }

    /// A target known only at run time: what follows its known directory names a protected
    /// file, or that directory holds one. The directory's own names say nothing (a project
    /// in `~/src/palisade` writing `$OUT/x` or running code that writes).
    #[test]
    fn run_time_targets_are_judged_by_what_follows_the_known_directory() {
        let s = scope(Path::new("/h"), Path::new("/h/src/palisade"), false);
        let ask = |p: &str| {
            matches!(
                reaches(&s, Path::new(p), Change::Write),
                Some(Reach::Ask(_))
            )
        };
        for p in [
            "/h/src/palisade/$D/.claude/settings.json",
            "/h/src/palisade/$(python3 code: open(os.environ['D'] + ' .claude settings.json'))",
            "/h/src/palisade/${CLAUDE_CONFIG_DIR}/x",
            "/h/.claude/$F",
            "/h/.local/share/palisade/$X",
            "/h/$NAME",
        ] {
            assert!(ask(p), "{p}");
        }
        for p in [
            "/h/src/palisade/$OUT/a.txt",
            "/h/src/palisade/$(python3 code: open('out.txt','w'))",
            "/h/src/palisade/build/$TARGET/palisade.o",
            "/tmp/$X/settings.json.bak",
        ] {
            assert_eq!(reaches(&s, Path::new(p), Change::Write), None, "{p}");
        }
    }

    /// Hard links and glob expansion are read through the scope's file view: the disk for the
    /// hook, nothing for a fixed (lexical) view, so the same scope with no files gives no
    /// inode verdict.
    #[test]
    fn inodes_and_listings_come_from_the_file_view() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("h");
        let project = home.join("p");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(home.join(".claude/settings.json"), "{}").unwrap();
        let alias = project.join("notes.json");
        std::fs::hard_link(home.join(".claude/settings.json"), &alias).unwrap();
        let mut s = scope(&home, &project, true);
        assert!(denied(&s, &alias.to_string_lossy(), Change::Write));
        // A glob that names it only once listed: `note*.json` is the alias.
        let star = project.join("note*.json");
        assert!(denied(&s, &star.to_string_lossy(), Change::Write));
        s.files = crate::call::FileView::lexical();
        assert_eq!(reaches(&s, &alias, Change::Write), None);
        assert_eq!(reaches(&s, &star, Change::Write), None);
    }
}

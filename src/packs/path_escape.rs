//! path-escape: changes outside the project, the temp dirs and the policy's extra roots —
//! writes, creations and deletes — judged by resolved path (`..`
//! folded, symlinks resolved where they exist), whichever tool or inline code makes them.

use super::common::written_paths;
use super::{Check, Example, Rule};
use crate::call::DeleteTarget;
use crate::effects::Effect;
use crate::normalize::{Call, CallKind, Scope};
use crate::verdict::Effect::Ask;
use std::path::PathBuf;

const PACK: &str = "path-escape";

fn outside(call: &Call, scope: &Scope) -> Option<String> {
    // A new work tree of the project's own repository (`git worktree add ../feature`, the
    // way parallel sessions are set up) brings in nothing the project does not hold; where it
    // lands is judged by the rules for protected and start-up places.
    let mut paths: Vec<(PathBuf, String)> = written_paths(call)
        .into_iter()
        .filter(|(_, how)| how != crate::effects::WORKTREE_ADD)
        .map(|(p, how)| (p, format!("{how} writes")))
        .collect();
    // Files and directories a line creates without writing content (`touch`, `mkdir`): the
    // other tools' creations are among their written paths already.
    let shell = matches!(call.kind, CallKind::Shell { .. });
    paths.extend(call.effects.iter().filter_map(|e| match e {
        Effect::Create { path } if shell => Some((path.clone(), "it creates".to_string())),
        // A file deleted outside the project is changed there as much as one written: `rm
        // ~/.bashrc`, `os.remove('/etc/hosts')`. (A move's source is not: `mv ~/Downloads/x.zip
        // .` brings a file in; where a move lands is judged as a write.)
        // Recursive deletes are destructive-fs's (`rm-outside-project`): one rule, so
        // one override, for each.
        Effect::Delete {
            target: DeleteTarget::Named { path: Some(p), .. },
            how,
            recursive: false,
            ..
        } => Some((p.clone(), format!("{how} deletes"))),
        _ => None,
    }));
    paths.into_iter().find_map(|(p, what)| {
        (!scope.within_roots(&p)).then(|| {
            format!(
                "{what} {}, outside the project and the allowed roots",
                p.display()
            )
        })
    })
}

pub static RULES: &[Rule] = &[Rule {
    id: "write-outside-roots",
    pack: PACK,
    effect: Ask,
    reason: "Changes outside the project need confirmation (add a root in the policy to allow a directory)",
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
        Example::bash("touch $HOME/x"),
        Example::bash("mknod -m 600 ~/pipe p"),
        Example::bash("chmod +x ~/bin/tool"),
        Example::bash("rm ~/.bashrc"),
        Example::bash("rm -f /etc/sudoers"),
        Example::bash("sudo unlink /etc/hosts"),
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
        Example::bash("mkdir -p \"$TMPDIR/work\" && touch ${TMPDIR}/work/a"),
        Example::bash("chmod 600 ~/.ssh/config"),
        Example::bash("rm -f build/out.o /tmp/scratch.txt"),
        Example::bash("mv src/old.rs src/new.rs"),
        Example::bash("mv /tmp/download.tgz vendor/"),
        Example::bash("mv ~/Downloads/x.zip ."),
        Example::bash("python3 -c \"import os; os.remove('build/x.o')\""),
        Example::bash("rsync -a dist/ deploy@host:/srv/www/"),
        Example::tool("Read", r#"{"file_path":"/etc/hosts"}"#),
    ],
}];

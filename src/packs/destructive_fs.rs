//! destructive-fs: recursive deletes of critical directories, raw disk writes, fork bombs.

use super::common::{Span, critical};
use super::{Check, Example, Rule};
use crate::effects::{DeleteTarget, Effect, FIND_DELETE, SYNC_DELETE};
use crate::normalize::{Call, Scope};
use crate::shell::{Command, ShellAnalysis};
use crate::verdict::Effect::{Ask, Deny};
use crate::vocab::is_disk_device;
use std::path::PathBuf;

const PACK: &str = "destructive-fs";

/// The call's recursive deletes by a removing program, `find -exec rm -r` included: `find`'s
/// own `-delete` is the find rules', `rsync --delete`'s `move-critical`'s.
fn tree_deletes(call: &Call) -> impl Iterator<Item = &DeleteTarget> {
    call.effects.iter().filter_map(|e| match e {
        Effect::Delete {
            target,
            recursive: true,
            how,
            ..
        } if how != FIND_DELETE && how != SYNC_DELETE => Some(target),
        _ => None,
    })
}

/// What the call's `find`s delete: each start as written, resolved when known, and whether a
/// test narrows the selection.
fn find_deletes(call: &Call) -> impl Iterator<Item = (&str, Option<&PathBuf>, bool)> {
    call.effects.iter().filter_map(|e| match e {
        Effect::Delete {
            target:
                DeleteTarget::Named {
                    written,
                    path,
                    span: Span::Found { filtered },
                },
            ..
        } => Some((written.as_str(), path.as_ref(), *filtered)),
        _ => None,
    })
}

fn rm_critical(call: &Call, scope: &Scope) -> Option<String> {
    tree_deletes(call).find_map(|t| match t {
        DeleteTarget::Named {
            written,
            path: Some(path),
            span,
        } if *span != Span::Pattern => {
            critical(path, scope).map(|what| format!("`{written}` is {what}"))
        }
        _ => None,
    })
}

fn rm_outside(call: &Call, scope: &Scope) -> Option<String> {
    tree_deletes(call)
        .find_map(|t| deleted_outside(t, scope))
        .or_else(|| moved_root(call, scope))
        .or_else(|| synced_root(call, scope))
}

/// `rsync -a --delete empty/ .`: a sync into a root deletes whatever of it the source lacks,
/// all of it from an empty source, `.git` with it, as `rm -rf` of the root would.
fn synced_root(call: &Call, scope: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Effect::Delete {
            target: DeleteTarget::Named {
                path: Some(path), ..
            },
            how,
            ..
        } if how == SYNC_DELETE && scope.roots.contains(path) => Some(format!(
            "`rsync --delete` into {} deletes what the source lacks",
            if *path == scope.project_root {
                "the project root".to_string()
            } else {
                format!("the root directory {}", path.display())
            }
        )),
        _ => None,
    })
}

/// `mv ~/project /tmp/old`: a root moved away is deleted from where it is expected, as
/// `rm -rf` of it would be, and what follows can delete it where it went unseen.
fn moved_root(call: &Call, scope: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Effect::Move { from, span, .. }
            if *span != Span::Pattern && !is_temp(from) && scope.roots.contains(from) =>
        {
            let what = if *from == scope.project_root {
                "the project root"
            } else {
                "a whole root directory"
            };
            Some(format!("`mv` moves away {what} ({})", from.display()))
        }
        _ => None,
    })
}

/// Why tree delete `t` needs confirmation: a target outside the roots, not known until it
/// runs, or a whole root (the project root itself, `rm -rf .`).
fn deleted_outside(t: &DeleteTarget, scope: &Scope) -> Option<String> {
    let (written, path, span) = match t {
        DeleteTarget::Stdin { .. } => {
            return Some("its targets come from stdin and cannot be checked".into());
        }
        DeleteTarget::Named {
            written,
            path: None,
            ..
        } => return Some(format!("the target `{written}` is not known until it runs")),
        DeleteTarget::Named {
            written,
            path: Some(path),
            span,
        } => (written, path, *span),
    };
    if !scope.within_roots(path) {
        return Some(format!(
            "`{written}` resolves to {} outside the project",
            path.display()
        ));
    }
    let is_root = scope.roots.iter().any(|r| r == path);
    // Emptying a temp root (`rm -rf /tmp/*`) stays inside it; the root itself is asked.
    // `find DIR … -exec rm -rf {}` deletes what find selects under DIR (the find rules
    // judge that), not DIR itself.
    let temp_contents = span == Span::Contents && *path != scope.project_root && is_temp(path);
    let whole = matches!(span, Span::Exact | Span::Contents);
    if !is_root || !whole || temp_contents {
        return None;
    }
    let what = if *path == scope.project_root {
        "the project root"
    } else {
        "a whole root directory"
    };
    let how = if span == Span::Contents {
        "everything in "
    } else {
        ""
    };
    Some(format!("`{written}` is {how}{what}"))
}

/// The shared temp directories.
fn is_temp(path: &std::path::Path) -> bool {
    path == std::path::Path::new("/tmp") || path == std::path::Path::new("/var/tmp")
}

fn find_delete(call: &Call, scope: &Scope) -> Option<String> {
    find_deletes(call).find_map(|(written, path, _)| {
        critical(path?, scope)
            .map(|what| format!("it deletes the files listed under `{written}`, in {what}"))
    })
}

fn find_delete_outside(call: &Call, scope: &Scope) -> Option<String> {
    find_deletes(call).find_map(|(written, path, filtered)| match path {
        None => Some(format!(
            "it deletes the files listed under `{written}`, a path not known until it runs"
        )),
        Some(path) if !scope.within_roots(path) => Some(format!(
            "it deletes the files listed under `{written}` ({})",
            path.display()
        )),
        Some(path) if *path == scope.project_root && !filtered => Some(format!(
            "it deletes every file listed under `{written}`: everything in the project root"
        )),
        Some(_) => None,
    })
}

/// The call's writes onto a disk device, by redirection (`> /dev/sda`) or not (`dd of=`,
/// `mkfs`, `tee`, `cp`, the Write tool, an MCP write), with how.
fn device_writes(call: &Call) -> impl Iterator<Item = (&PathBuf, &str, bool)> {
    call.effects.iter().filter_map(|e| match e {
        Effect::Write { path, how, .. } if is_disk_device(&path.to_string_lossy()) => {
            Some((path, how.as_str(), matches!(how.as_str(), ">" | ">>")))
        }
        _ => None,
    })
}

fn disk_write(call: &Call, _: &Scope) -> Option<String> {
    device_writes(call)
        .find(|(_, _, redirect)| !redirect)
        .map(|(path, how, _)| format!("{how} writes the disk device {}", path.display()))
}

fn redirect_to_disk(call: &Call, _: &Scope) -> Option<String> {
    device_writes(call)
        .find(|(_, _, redirect)| *redirect)
        .map(|(path, _, _)| {
            format!(
                "output is redirected onto the disk device {}",
                path.display()
            )
        })
}

/// A Windows drive formatted or a disk wiped by name rather than by device path: `format
/// C:`, `Format-Volume`, `Clear-Disk -RemoveData`, `Remove-Partition`.
fn drive_wipe(c: &Command, _: &Scope) -> Option<String> {
    let drive = |t: &str| {
        let b = t.as_bytes();
        b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
    };
    let lower: Vec<String> = c.args.iter().map(|a| a.text.to_ascii_lowercase()).collect();
    let hit = match c.program.as_str() {
        "format" | "format.com" => c.operands().iter().any(|w| drive(&w.text)),
        "format-volume" | "remove-partition" => true,
        "clear-disk" => lower
            .iter()
            .any(|a| a == "-removedata" || a == "-removeoem"),
        // Volume managers' and drives' own erases: a logical volume, group or physical
        // volume removed, a pool destroyed, a subvolume deleted, a drive formatted or
        // sanitized, a RAID member's or an encrypted volume's header erased.
        "lvremove" | "vgremove" | "pvremove" => !c.operands().is_empty(),
        "zpool" => lower
            .first()
            .is_some_and(|a| matches!(a.as_str(), "destroy" | "labelclear")),
        "btrfs" => {
            lower
                .first()
                .is_some_and(|a| a == "subvolume" || a == "sub")
                && lower
                    .get(1)
                    .is_some_and(|a| matches!(a.as_str(), "delete" | "del"))
        }
        "nvme" => lower
            .first()
            .is_some_and(|a| matches!(a.as_str(), "format" | "sanitize")),
        "mdadm" => lower.iter().any(|a| a == "--zero-superblock"),
        "cryptsetup" => lower
            .first()
            .is_some_and(|a| matches!(a.as_str(), "erase" | "lukserase")),
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{}` erases a drive",
            c.line().chars().take(70).collect::<String>()
        )
    })
}

/// Backups and snapshots deleted wholesale: Windows shadow copies (`vssadmin delete
/// shadows`, `wmic shadowcopy delete`, `Win32_ShadowCopy` objects removed), its backup
/// catalog (`wbadmin delete …`), Time Machine backups (`tmutil delete`), and a ZFS dataset's
/// snapshots destroyed recursively. What a loss would be restored from is gone.
fn backups_destroyed(c: &Command, _: &Scope) -> Option<String> {
    let lower: Vec<String> = c.args.iter().map(|a| a.text.to_ascii_lowercase()).collect();
    let has = |x: &str| lower.iter().any(|a| a == x);
    let hit = match c.program.as_str() {
        "vssadmin" | "vssadmin.exe" => has("delete") || (has("resize") && has("shadowstorage")),
        "wmic" | "wmic.exe" => has("shadowcopy") && has("delete"),
        "wbadmin" | "wbadmin.exe" => has("delete"),
        "tmutil" => has("delete") || has("deletelocalsnapshots"),
        "zfs" => {
            lower.first().is_some_and(|a| a == "destroy")
                && (c.has_flag(Some('r'), &[]) || c.has_flag(Some('R'), &[]))
        }
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{}` deletes backups or snapshots",
            c.line().chars().take(70).collect::<String>()
        )
    })
}

/// `Get-CimInstance Win32_ShadowCopy | Remove-CimInstance`, `Get-WmiObject Win32_ShadowCopy
/// | ForEach-Object { $_.Delete() }`: shadow copies listed and removed in one line.
fn shadow_copies_removed(a: &ShellAnalysis, _: &Scope) -> Option<String> {
    let lists = a.commands.iter().any(|c| {
        matches!(
            c.program.as_str(),
            "get-ciminstance" | "get-wmiobject" | "gwmi"
        ) && c
            .args
            .iter()
            .any(|w| w.text.to_ascii_lowercase().contains("win32_shadowcopy"))
    });
    let removes = a.commands.iter().any(|c| {
        matches!(
            c.program.as_str(),
            "remove-ciminstance" | "remove-wmiobject"
        ) || c
            .args
            .iter()
            .any(|w| w.text.to_ascii_lowercase().contains(".delete()"))
    });
    (lists && removes).then(|| "it lists the shadow copies and removes them".into())
}

/// A function whose body pipes the function into itself: `:(){ :|:& };:`. Only a function's
/// own body counts: a long pipeline of one program (`tr a b | tr a b | …`) is not a bomb.
fn fork_bomb(a: &ShellAnalysis, _: &Scope) -> Option<String> {
    a.functions.iter().find_map(|f| {
        let body = a.commands.get(f.body.clone())?;
        body.iter().enumerate().find_map(|(k, c)| {
            let i = f.body.start + k;
            let up = &a.commands[c.stdin_from.filter(|&j| j != i)?];
            (c.program == f.name && up.program == f.name)
                .then(|| format!("`{}` calls itself through a pipe", f.name))
        })
    })
}

/// `mv ~ /tmp/x`, `mv /etc …`: moving a critical directory away is deleting it from where
/// everything expects it; `rsync --delete` into one wipes what the source lacks.
fn move_critical(call: &Call, scope: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Effect::Move { from, span, .. } if *span != Span::Pattern => {
            critical(from, scope).map(|what| format!("`mv` moves away {what} ({})", from.display()))
        }
        Effect::Delete {
            target: DeleteTarget::Named {
                path: Some(path), ..
            },
            how,
            ..
        } if how == SYNC_DELETE => critical(path, scope)
            .map(|what| format!("`rsync --delete` into {what} deletes what the source lacks")),
        _ => None,
    })
}

/// `diskutil eraseDisk`, `partitionDisk`, `zeroDisk`…: macOS disk erasure.
fn disk_erase(c: &Command, _: &Scope) -> Option<String> {
    let sub = c.subcommand()?.to_ascii_lowercase();
    let hit = sub.starts_with("erase")
        || matches!(
            sub.as_str(),
            "partitiondisk" | "zerodisk" | "randomdisk" | "secureerase" | "reformat"
        )
        || (sub == "apfs"
            && c.operands()
                .get(1)
                .is_some_and(|o| o.text.to_ascii_lowercase().starts_with("delete")));
    hit.then(|| format!("`diskutil {sub}` erases a disk or volume"))
}

/// `find /etc -type f | xargs rm -f`: a delete whose targets are what `find` lists under a
/// critical directory.
fn find_piped_delete(call: &Call, scope: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Effect::Delete {
            target: DeleteTarget::Stdin { listed },
            how,
            ..
        } => listed.iter().find_map(|(written, path)| {
            critical(path.as_ref()?, scope)
                .map(|what| format!("`{how}` deletes what `find {written}` lists in {what}"))
        }),
        _ => None,
    })
}

/// Stopping the machine, every process, or its firewall.
fn system_disruption(c: &Command, _: &Scope) -> Option<String> {
    let ops: Vec<&str> = c.operands().iter().map(|w| w.text.as_str()).collect();
    let first = ops.first().copied().unwrap_or("");
    let hit = match c.program.as_str() {
        "shutdown" | "reboot" | "halt" | "poweroff" => !c.has_flag(Some('c'), &["help"]),
        "init" | "telinit" => matches!(first, "0" | "6"),
        "systemctl" => matches!(
            first,
            "poweroff" | "reboot" | "halt" | "kexec" | "emergency"
        ),
        "kill" => c.args.iter().any(|a| a.text == "-1"),
        "iptables" | "ip6tables" => c.has_flag(Some('F'), &["flush"]),
        "nft" => ops.windows(2).any(|w| w[0] == "flush" && w[1] == "ruleset"),
        "ufw" => matches!(first, "disable" | "reset"),
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{}` stops the machine, every process or the firewall",
            c.line()
        )
    })
}

fn perms_critical(call: &Call, scope: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Effect::Chmod {
            path,
            how,
            recursive: true,
        } => critical(path, scope).map(|what| format!("recursive {how} of {what}")),
        _ => None,
    })
}

/// Deletes by a program that overwrites the content first (`shred`, `srm`).
fn shred_files(call: &Call, _: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Effect::Delete { how, .. } if matches!(how.as_str(), "shred" | "srm") => {
            Some(format!("{how} destroys file contents beyond recovery"))
        }
        _ => None,
    })
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "rm-critical",
        pack: PACK,
        effect: Deny,
        reason: "Recursive delete of a critical directory (root, home or a system directory) is refused; delete only specific paths inside the project",
        programs: &[],
        check: Check::Call(rm_critical),
        refused: &[
            Example::bash("rm -rf /"),
            Example::bash("rm -rf ~"),
            Example::bash("rm -rf ~/"),
            Example::bash("rm -fr $HOME"),
            Example::bash("rm -r -f \"${HOME}\""),
            Example::bash("rm --recursive --force /etc"),
            Example::bash("/bin/rm -Rf /usr"),
            Example::bash("r''m -rf /*"),
            Example::bash("\\rm -rf /home/dev/project/../.."),
            Example::bash("sudo rm -rf --no-preserve-root /"),
            Example::bash("bash -c 'rm -rf ~'"),
            Example::bash("find / -exec rm -rf {} \\;"),
            Example::bash("tar --remove-files -czf /tmp/h.tgz ~"),
            Example::bash("rsync -a --remove-source-files ~/ /tmp/x"),
            Example::bash("git -C /home/dev rm -rf ."),
            Example::bash("npx rimraf ~"),
            Example::bash("pnpm dlx del-cli /"),
            Example::tool(
                "mcp__filesystem__delete_directory",
                r#"{"path":"/home/dev","recursive":true}"#,
            ),
        ],
        allowed: &[
            Example::bash("rm -rf target/ node_modules/"),
            Example::bash("npx rimraf dist coverage"),
            Example::tool(
                "mcp__filesystem__delete_directory",
                r#"{"path":"/home/dev/project/build","recursive":true}"#,
            ),
            Example::bash("rm -rf /tmp/build-123"),
            Example::bash("rm ~/notes.txt"),
            Example::bash("rm -rf ./dist"),
            Example::bash("tar --remove-files -czf logs.tgz logs/"),
            Example::bash("git rm -r --cached ."),
        ],
    },
    Rule {
        id: "rm-outside-project",
        pack: PACK,
        effect: Ask,
        reason: "Recursive delete outside the project, of the project root, or of a target not known in advance needs confirmation",
        programs: &[],
        check: Check::Call(rm_outside),
        refused: &[
            Example::bash("rm -rf ~/Documents"),
            Example::bash("rm -rf ../other-project"),
            Example::bash("rm -rf ."),
            Example::bash("rm -rf *"),
            Example::bash("rm -rf \"$BUILD_DIR\""),
            Example::bash("rm -rf \"$(git rev-parse --show-toplevel)\""),
            // The top of the work tree as seen from elsewhere is not known.
            Example::bash("cd /tmp && rm -rf \"$(git rev-parse --show-toplevel)/x\""),
            Example::bash("ls | xargs rm -rf"),
            Example::bash("mkdir -p empty && rsync -a --delete empty/ ."),
            Example::bash("trash -r ~/Documents"),
            Example::bash("git rm -rf ."),
            Example::bash("zip -rm /tmp/docs.zip ~/Documents"),
            Example::bash("mv /home/dev/project /tmp/old-project"),
            Example::bash("cd .. && mv project project.bak"),
            Example::tool(
                "mcp__filesystem__delete_directory",
                r#"{"path":"/home/dev/other","recursive":true}"#,
            ),
        ],
        allowed: &[
            Example::bash("rm -rf target/ node_modules/ dist build .next __pycache__"),
            Example::bash("rsync -a --delete src/ /tmp/mirror/"),
            Example::bash("rsync -av --delete dist/ public/"),
            Example::bash("rm -rf /tmp/scratch"),
            Example::bash("rm -f old.log"),
            Example::bash("cd src && rm -rf generated"),
            Example::bash("rm -rf /tmp/*.log"),
            Example::bash("rm -rf /tmp/*"),
            Example::bash("rm -rf /var/tmp/*"),
            Example::bash("rm -rf \"$TMPDIR/build\""),
            Example::bash("rm -rf ${TMPDIR:-/tmp}/cache"),
            Example::bash("rm -rf $(echo build)"),
            Example::bash("rm -rf \"$(git rev-parse --show-toplevel)/target\""),
            Example::bash("rm -rf *.egg-info"),
            Example::bash("find . -type d -name __pycache__ -exec rm -rf {} +"),
        ],
    },
    Rule {
        id: "find-delete-critical",
        pack: PACK,
        effect: Deny,
        reason: "`find` deleting over a critical directory is refused",
        programs: &[],
        check: Check::Call(find_delete),
        refused: &[
            Example::bash("find / -name '*' -delete"),
            Example::bash("find ~ -type f -delete"),
            Example::bash("find /usr -type f -exec rm {} \\;"),
            Example::bash("find $HOME -execdir /bin/rm -f {} +"),
            Example::bash("sudo find /etc -name '*.conf' -exec unlink {} \\;"),
            Example::bash("find -L / -type f -delete"),
            // Emptied is as lost as removed.
            Example::bash("find / -type f -exec truncate -s 0 {} +"),
            Example::bash("find ~ -type f -exec cp /dev/null {} \\;"),
        ],
        allowed: &[
            Example::bash("find . -name '*.pyc' -delete"),
            Example::bash("find /tmp/x -delete"),
            Example::bash("find ~/logs -name '*.log' -exec truncate -s 10M {} +"),
        ],
    },
    Rule {
        id: "find-delete-outside",
        pack: PACK,
        effect: Ask,
        reason: "Deleting what `find` or `git ls-files` lists outside the project, or everything in it, needs confirmation",
        programs: &[],
        check: Check::Call(find_delete_outside),
        refused: &[
            Example::bash("find ~/Downloads -delete"),
            Example::bash("find .. -name '*.log' -delete"),
            Example::bash("find . -delete"),
            Example::bash("find . -type f -exec rm -f {} +"),
            Example::bash("find ../other -execdir rm {} \\;"),
            Example::bash("find \"$DIR\" -name '*.o' -delete"),
            Example::bash("find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;"),
            Example::bash("find . -type f -exec truncate -s 0 {} +"),
            // What a lister hands `xargs rm` goes as surely as what `-delete` removes.
            Example::bash("find . -type f | xargs rm"),
            Example::bash("git ls-files -z | xargs -0 rm -f"),
            Example::bash("git ls-files --others | xargs rm"),
            Example::bash("find ~/Downloads -name '*.part' -print0 | xargs -0 rm"),
        ],
        allowed: &[
            Example::bash("find . -name '*.pyc' -print0 | xargs -0 rm"),
            Example::bash("git ls-files '*.orig' | xargs rm"),
            Example::bash("git ls-files | xargs wc -l"),
            Example::bash("find build -type f | xargs rm"),
            Example::bash("find . -name '*.log' -exec truncate -s 0 {} +"),
            Example::bash("truncate -s 0 app.log"),
            Example::bash("find . -name '*.pyc' -delete"),
            Example::bash("find /tmp/x -delete"),
            Example::bash("find ./target -delete"),
            Example::bash("find build -type f -delete"),
            Example::bash("find . -name '*.o' -exec rm {} +"),
            Example::bash("find . -name '*.rs' -exec grep -l TODO {} +"),
            Example::bash("find . -type d -exec rmdir {} +"),
        ],
    },
    Rule {
        id: "drive-wipe",
        pack: PACK,
        effect: Deny,
        reason: "Formatting a drive or wiping a disk destroys everything on it",
        programs: &[
            "format",
            "format.com",
            "format-volume",
            "remove-partition",
            "clear-disk",
            "lvremove",
            "vgremove",
            "pvremove",
            "zpool",
            "btrfs",
            "nvme",
            "mdadm",
            "cryptsetup",
        ],
        check: Check::Command(drive_wipe),
        refused: &[
            Example::bash("format C: /q /y"),
            Example::bash("lvremove -f vg0/data"),
            Example::bash("zpool destroy -f tank"),
            Example::bash("btrfs subvolume delete /mnt/data/@home"),
            Example::bash("nvme format /dev/nvme0n1 -s 1"),
            Example::bash("mdadm --zero-superblock /dev/sdb1"),
            Example::bash("cryptsetup erase /dev/sdc2"),
            Example::bash("cmd /c \"format D: /fs:ntfs /q /y\""),
            Example::bash("pwsh -c 'Format-Volume -DriveLetter D -FileSystem NTFS'"),
            Example::bash("pwsh -c 'Clear-Disk -Number 1 -RemoveData -Confirm:$false'"),
        ],
        allowed: &[
            Example::bash("pwsh -c 'Get-Volume'"),
            Example::bash("format README.md"),
            Example::bash("pwsh -c 'Clear-Disk -Number 1 -WhatIf'"),
            Example::bash("lvs"),
            Example::bash("zpool status tank"),
            Example::bash("btrfs subvolume list /mnt/data"),
            Example::bash("nvme list"),
            Example::bash("cryptsetup luksDump /dev/sdc2"),
        ],
    },
    Rule {
        id: "backups-destroyed",
        pack: PACK,
        effect: Deny,
        reason: "Deleting shadow copies, backups or snapshots removes the way back after a loss",
        programs: &[
            "vssadmin",
            "vssadmin.exe",
            "wmic",
            "wmic.exe",
            "wbadmin",
            "wbadmin.exe",
            "tmutil",
            "zfs",
        ],
        check: Check::Command(backups_destroyed),
        refused: &[
            Example::bash("vssadmin delete shadows /all /quiet"),
            Example::bash("cmd /c \"vssadmin resize shadowstorage /for=c: /on=c: /maxsize=401MB\""),
            Example::bash("wmic shadowcopy delete"),
            Example::bash("wbadmin delete catalog -quiet"),
            Example::bash(
                "sudo tmutil delete /Volumes/Backup/Backups.backupdb/mac/2026-01-01-000000",
            ),
            Example::bash("zfs destroy -r tank/data@%"),
        ],
        allowed: &[
            Example::bash("vssadmin list shadows"),
            Example::bash("wmic shadowcopy list brief"),
            Example::bash("tmutil listbackups"),
            Example::bash("zfs list -t snapshot"),
            Example::bash("zfs destroy tank/scratch@old"),
        ],
    },
    Rule {
        id: "shadow-copies-removed",
        pack: PACK,
        effect: Deny,
        reason: "Deleting shadow copies, backups or snapshots removes the way back after a loss",
        programs: &[],
        check: Check::Line(shadow_copies_removed),
        refused: &[
            Example::bash("pwsh -c 'Get-CimInstance Win32_ShadowCopy | Remove-CimInstance'"),
            Example::bash(
                "powershell -c 'Get-WmiObject Win32_Shadowcopy | ForEach-Object { $_.Delete() }'",
            ),
        ],
        allowed: &[
            Example::bash("pwsh -c 'Get-CimInstance Win32_ShadowCopy | Select-Object ID'"),
            Example::bash("pwsh -c 'Get-CimInstance Win32_Process | Remove-CimInstance'"),
        ],
    },
    Rule {
        id: "disk-device-write",
        pack: PACK,
        effect: Deny,
        reason: "Writing, formatting or wiping a disk device destroys everything on it",
        programs: &[],
        check: Check::Call(disk_write),
        refused: &[
            Example::bash("dd if=/dev/zero of=/dev/sda bs=1M"),
            Example::bash("sudo mkfs.ext4 /dev/nvme0n1p1"),
            Example::bash("wipefs -a /dev/sdb"),
            Example::bash("shred -n 3 /dev/sda"),
            Example::bash("sudo tee /dev/sdb < image.iso"),
            Example::bash("cp /dev/zero /dev/nvme0n1"),
            Example::bash("sudo mkfs.ext4 -L data /dev/mapper/vg-data"),
            Example::bash("bash -c 'dd if=img of=/dev/disk2'"),
            Example::bash("parted -s /dev/sda mklabel gpt"),
            Example::bash("sgdisk --zap-all /dev/sda"),
            Example::bash("badblocks -wsv /dev/sdb"),
            Example::bash("sudo cryptsetup luksFormat /dev/sdb1"),
            Example::bash("sfdisk /dev/sda < layout.txt"),
            Example::tool("Write", r#"{"file_path":"/dev/sda","content":"x"}"#),
            Example::tool(
                "mcp__filesystem__write_file",
                r#"{"path":"/dev/nvme0n1","content":"x"}"#,
            ),
        ],
        allowed: &[
            Example::bash("dd if=/dev/zero of=disk.img bs=1M count=10"),
            Example::bash("mkfs.ext4 disk.img"),
            Example::bash("tee /dev/null < log.txt"),
            Example::bash("dd if=/dev/sda of=backup.img"),
            Example::bash("fdisk -l"),
            Example::bash("sudo fdisk -l /dev/sda"),
            Example::bash("parted /dev/nvme0n1 print"),
            Example::bash("wipefs /dev/sdb"),
            Example::bash("sgdisk -p /dev/sda"),
            Example::bash("badblocks -sv /dev/sdb"),
            Example::bash("sudo cryptsetup luksOpen /dev/sdb1 data"),
        ],
    },
    Rule {
        id: "redirect-to-disk",
        pack: PACK,
        effect: Deny,
        reason: "Redirecting output onto a disk device overwrites it",
        programs: &[],
        check: Check::Call(redirect_to_disk),
        refused: &[
            Example::bash("cat /dev/urandom > /dev/sda"),
            Example::bash("echo x >/dev/nvme0n1"),
        ],
        allowed: &[
            Example::bash("echo x > /dev/null"),
            Example::bash("make 2>/dev/null"),
        ],
    },
    Rule {
        id: "fork-bomb",
        pack: PACK,
        effect: Deny,
        reason: "A fork bomb exhausts the machine's processes",
        programs: &[],
        check: Check::Line(fork_bomb),
        refused: &[
            Example::bash(":(){ :|:& };:"),
            Example::bash("bomb() { bomb | bomb & }; bomb"),
            Example::bash("function f { f | f & }; f"),
            Example::bash("bash -c ':(){ :|:& };:'"),
        ],
        allowed: &[
            Example::bash("yes | head -n 3"),
            Example::bash("cat a | cat"),
            Example::bash("tr a b < f | tr b c | tr c d | tr d e"),
            Example::bash("up() { echo up; }; up | up | up"),
        ],
    },
    Rule {
        id: "move-critical",
        pack: PACK,
        effect: Deny,
        reason: "Moving away or overwriting-by-sync a critical directory (root, home or a system directory) destroys it where it is needed",
        programs: &[],
        check: Check::Call(move_critical),
        refused: &[
            Example::bash("mv ~ /tmp/x"),
            Example::bash("mv /etc /tmp/etc"),
            Example::bash("sudo mv /usr /usr.old"),
            Example::bash("mv -t /tmp ~"),
            Example::bash("rsync -a --delete /tmp/empty/ ~/"),
            Example::bash("rsync -a --delete-before empty/ /usr/"),
            Example::bash("sudo mv -t /tmp/x /etc"),
            Example::bash("mv --target-directory=/tmp -- /usr"),
            Example::bash("bash -c 'mv \"$HOME\" /tmp/h'"),
            Example::bash("env /bin/mv -f ~/ /tmp/h"),
            Example::bash("rsync -a --exclude .git --delete /tmp/empty/ /etc"),
            Example::tool(
                "mcp__filesystem__move_file",
                r#"{"source":"/etc","destination":"/tmp/etc"}"#,
            ),
        ],
        allowed: &[
            Example::bash("mv build/app dist/"),
            Example::bash("mv ~/Downloads/x.zip ."),
            Example::bash("rsync -a --delete dist/ /tmp/site/"),
            Example::bash("mv ~/.config/app.bak ~/.config/app"),
            Example::bash("mv -t dist build/app build/lib"),
            Example::bash("mv /tmp/*.log logs/"),
            Example::bash("rsync -a --delete dist/ deploy@web:/"),
            Example::bash("rsync -av --delete -e ssh build/ host:/usr/share/www/"),
        ],
    },
    Rule {
        id: "disk-erase",
        pack: PACK,
        effect: Deny,
        reason: "Erasing or repartitioning a disk destroys everything on it",
        programs: &["diskutil"],
        check: Check::Command(disk_erase),
        refused: &[
            Example::bash("diskutil eraseDisk JHFS+ X disk2"),
            Example::bash("diskutil eraseVolume APFS X /Volumes/Data"),
            Example::bash("sudo diskutil partitionDisk disk0 GPT JHFS+ x 0b"),
            Example::bash("diskutil zeroDisk disk3"),
            Example::bash("diskutil apfs deleteContainer disk1"),
        ],
        allowed: &[
            Example::bash("diskutil list"),
            Example::bash("diskutil info disk0"),
        ],
    },
    Rule {
        id: "find-piped-delete",
        pack: PACK,
        effect: Deny,
        reason: "Deleting what `find` lists under a critical directory is refused",
        programs: &[],
        check: Check::Call(find_piped_delete),
        refused: &[
            Example::bash("find /etc -type f | xargs rm -f"),
            Example::bash("find ~ -print0 | xargs -0 rm -rf"),
            Example::bash("sudo find /var/lib -type f | sudo xargs shred -u"),
            Example::bash("find \"$HOME\" -type f -print0 | xargs -0 -r /bin/rm -f"),
            Example::bash("cd /tmp && find /usr/lib -name '*.so' | env xargs rm"),
        ],
        allowed: &[
            Example::bash("find . -name '*.pyc' | xargs rm -f"),
            Example::bash("find /etc -name '*.conf' | xargs grep -l ssl"),
            Example::bash("find build -type f | xargs rm -f"),
        ],
    },
    Rule {
        id: "system-disruption",
        pack: PACK,
        effect: Ask,
        reason: "Shutting down or rebooting the machine, killing every process or dropping the firewall needs confirmation",
        programs: &[
            "shutdown",
            "reboot",
            "halt",
            "poweroff",
            "init",
            "telinit",
            "systemctl",
            "kill",
            "iptables",
            "ip6tables",
            "nft",
            "ufw",
        ],
        check: Check::Command(system_disruption),
        refused: &[
            Example::bash("shutdown -h now"),
            Example::bash("sudo reboot"),
            Example::bash("systemctl poweroff"),
            Example::bash("kill -9 -1"),
            Example::bash("iptables -F"),
            Example::bash("ufw disable"),
            Example::bash("nft flush ruleset"),
        ],
        allowed: &[
            Example::bash("kill -9 12345"),
            Example::bash("iptables -L -n"),
            Example::bash("ufw status"),
            Example::bash("systemctl restart --user app"),
            Example::bash("shutdown -c"),
        ],
    },
    Rule {
        id: "perms-critical",
        pack: PACK,
        effect: Deny,
        reason: "Recursively changing ownership or permissions of a critical directory breaks the system",
        programs: &[],
        check: Check::Call(perms_critical),
        refused: &[
            Example::bash("chmod -R 777 /"),
            Example::bash("sudo chown -R dev:dev /usr"),
            Example::bash("chattr -R +i /"),
            Example::bash("sudo chflags -R uchg /usr"),
            Example::bash("setfacl -R -m u:eve:rwx /etc"),
            Example::bash("sudo chown -R --reference=/tmp/f /usr"),
            Example::bash("chmod -R -x /"),
            Example::bash("find . -maxdepth 0 -exec sudo chmod -R 777 ~ \\;"),
            // Everything a find selects under the home or the root, no name narrowing it.
            Example::bash("find ~ -type f -exec chmod 666 {} +"),
            Example::bash("find / -type f | xargs chmod 666"),
            Example::bash("find /etc -exec chattr +i {} \\;"),
        ],
        allowed: &[
            Example::bash("find . -type f -exec chmod 644 {} +"),
            Example::bash("find src -type d -print0 | xargs -0 chmod 755"),
            Example::bash("find ~/bin -name '*.sh' -exec chmod +x {} +"),
            Example::bash("chmod -R u+w ./build"),
            Example::bash("chmod +x scripts/run.sh"),
            Example::bash("setfacl -m u:eve:r /etc/app.conf"),
            Example::bash("chmod 644 /etc/hosts"),
            Example::bash("sudo chown -R dev:dev /home/dev/project/build"),
        ],
    },
    Rule {
        id: "shred-files",
        pack: PACK,
        effect: Ask,
        reason: "Shredding files makes them unrecoverable",
        programs: &[],
        check: Check::Call(shred_files),
        refused: &[
            Example::bash("shred -u secrets.txt"),
            Example::bash("sudo srm -r old-keys/"),
            Example::bash("find . -name '*.key' -exec shred -u {} \\;"),
            Example::bash("echo notes.txt | xargs shred"),
        ],
        allowed: &[
            Example::bash("shred --help"),
            Example::bash("rm -f notes.txt"),
        ],
    },
];

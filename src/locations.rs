//! Where palisade's files live: the user policy, the state directory (audit, ledger, cache),
//! and the files self-protection guards. Read from the environment once per process.

use std::path::{Path, PathBuf};

/// Paths palisade reads and writes, resolved from `PALISADE_CONFIG`, `PALISADE_DATA_DIR`,
/// `HOME` and `XDG_*` (via the `directories` crate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    pub home: PathBuf,
    /// The user policy file (it may not exist).
    pub user_policy: PathBuf,
    /// True when `PALISADE_CONFIG` named the user policy explicitly: then it must exist.
    pub user_policy_explicit: bool,
    /// State directory: audit log, ledgers, risk cache.
    pub data_dir: PathBuf,
    /// Claude Code's user config dir (`CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_dir: PathBuf,
}

impl Locations {
    /// Reads the process environment.
    pub fn from_env() -> Locations {
        Locations::from_vars(|k| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    /// Resolves locations from a variable lookup (tests and replay pass their own).
    pub fn from_vars(var: impl Fn(&str) -> Option<PathBuf>) -> Locations {
        let home = var("HOME")
            .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
            .unwrap_or_else(|| PathBuf::from("/"));
        let config_base = var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
        let data_base = var("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local/share"));
        // On Linux `directories` gives exactly XDG_CONFIG_HOME/XDG_DATA_HOME or their HOME
        // defaults; computing them from the lookup keeps tests and replay off the real home.
        let (config_dir, data_dir_default) =
            if cfg!(target_os = "linux") || var("XDG_CONFIG_HOME").is_some() {
                (config_base.join("palisade"), data_base.join("palisade"))
            } else {
                match directories::ProjectDirs::from("", "", "palisade") {
                    Some(p) => (p.config_dir().to_path_buf(), p.data_dir().to_path_buf()),
                    None => (config_base.join("palisade"), data_base.join("palisade")),
                }
            };
        let explicit = var("PALISADE_CONFIG");
        Locations {
            user_policy: explicit
                .clone()
                .unwrap_or_else(|| config_dir.join("policy.yaml")),
            user_policy_explicit: explicit.is_some(),
            data_dir: var("PALISADE_DATA_DIR").unwrap_or(data_dir_default),
            claude_dir: var("CLAUDE_CONFIG_DIR").unwrap_or_else(|| home.join(".claude")),
            home,
        }
    }

    /// The project root for a call: `CLAUDE_PROJECT_DIR` when given, else the nearest ancestor
    /// of `cwd` holding `.git` or `.palisade.yaml`, else `cwd`.
    pub fn project_root(cwd: &Path, claude_project_dir: Option<&Path>) -> PathBuf {
        if let Some(dir) = claude_project_dir {
            return dir.to_path_buf();
        }
        let mut cur = Some(cwd);
        while let Some(dir) = cur {
            if dir.join(".git").exists() || dir.join(".palisade.yaml").exists() {
                return dir.to_path_buf();
            }
            cur = dir.parent();
        }
        cwd.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honours_overrides_and_xdg() {
        let l = Locations::from_vars(|k| match k {
            "HOME" => Some("/h".into()),
            "XDG_CONFIG_HOME" => Some("/cfg".into()),
            _ => None,
        });
        assert_eq!(l.user_policy, PathBuf::from("/cfg/palisade/policy.yaml"));
        assert_eq!(l.claude_dir, PathBuf::from("/h/.claude"));
        let l = Locations::from_vars(|k| match k {
            "HOME" => Some("/h".into()),
            "PALISADE_CONFIG" => Some("/p.yaml".into()),
            "PALISADE_DATA_DIR" => Some("/state".into()),
            _ => None,
        });
        assert_eq!(l.user_policy, PathBuf::from("/p.yaml"));
        assert!(l.user_policy_explicit);
        assert_eq!(l.data_dir, PathBuf::from("/state"));
    }
}

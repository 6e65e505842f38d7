//! Flag and operand helpers over a normalised command, so rules read `-rf`, `-fr`, `-r -f` and
//! `--recursive --force` alike.

use super::{Command, Word};

impl Command {
    /// True when the command carries the short flag `short` (alone or combined, as in `-rf`) or
    /// one of the `long` flags (`--force`, `--force=…`). Options after `--` are operands.
    pub fn has_flag(&self, short: Option<char>, long: &[&str]) -> bool {
        for arg in &self.args {
            let a = arg.text.as_str();
            if a == "--" {
                break;
            }
            if let Some(name) = a.strip_prefix("--") {
                let name = name.split('=').next().unwrap_or(name);
                if long.iter().any(|l| l.trim_start_matches('-') == name) {
                    return true;
                }
            } else if let Some(cluster) = a.strip_prefix('-')
                && let Some(c) = short
                && !cluster.is_empty()
                && cluster.chars().all(|ch| ch.is_ascii_alphanumeric())
                && cluster.contains(c)
            {
                return true;
            }
        }
        false
    }

    /// The value of an option given as `-o value`, `-ovalue`, `--output value` or `--output=value`.
    pub fn option_value(&self, short: Option<char>, long: &[&str]) -> Option<String> {
        let mut iter = self.args.iter().peekable();
        while let Some(arg) = iter.next() {
            let a = arg.text.as_str();
            if a == "--" {
                break;
            }
            if let Some(name) = a.strip_prefix("--") {
                let (n, _) = name.split_once('=').unwrap_or((name, ""));
                if long.iter().any(|l| l.trim_start_matches('-') == n) {
                    if let Some((_, v)) = name.split_once('=') {
                        return Some(v.to_string());
                    }
                    return iter.peek().map(|w| w.text.clone());
                }
            } else if let (Some(c), Some(cluster)) = (short, a.strip_prefix('-')) {
                if cluster.ends_with(c) && cluster.chars().all(|ch| ch.is_ascii_alphanumeric()) {
                    return iter.peek().map(|w| w.text.clone());
                }
                // `-ofile`: the value glued to the option letter.
                if let Some(rest) = cluster.strip_prefix(c).filter(|r| !r.is_empty()) {
                    return Some(rest.to_string());
                }
            }
        }
        None
    }

    /// Arguments that are not options: everything not starting with `-`, and all after `--`.
    pub fn operands(&self) -> Vec<&Word> {
        let mut out = Vec::new();
        let mut after_dashdash = false;
        for arg in &self.args {
            if after_dashdash {
                out.push(arg);
            } else if arg.text == "--" {
                after_dashdash = true;
            } else if !arg.text.starts_with('-') || arg.text == "-" {
                out.push(arg);
            }
        }
        out
    }

    /// The first operand: the subcommand of `git`, `npm`, `kubectl`, `terraform`…
    pub fn subcommand(&self) -> Option<&str> {
        self.operands().first().map(|w| w.text.as_str())
    }

    /// All argument texts joined with spaces, for reasons and matching.
    pub fn line(&self) -> String {
        let mut s = self.program.clone();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.text);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(args: &[&str]) -> Command {
        Command {
            program: "rm".into(),
            program_path: "rm".into(),
            args: args.iter().map(|a| Word::literal(*a)).collect(),
            ..Command::default()
        }
    }

    #[test]
    fn flags_in_every_spelling() {
        for args in [
            &["-rf", "x"][..],
            &["-fr", "x"],
            &["-r", "-f", "x"],
            &["--recursive", "--force", "x"],
            &["-Rf", "x"],
        ] {
            let c = cmd(args);
            assert!(
                c.has_flag(Some('r'), &["recursive"]) || c.has_flag(Some('R'), &["recursive"]),
                "{args:?}"
            );
            assert!(c.has_flag(Some('f'), &["force"]), "{args:?}");
        }
        let c = cmd(&["--", "-rf"]);
        assert!(!c.has_flag(Some('r'), &[]));
        assert_eq!(c.operands().len(), 1);
    }

    #[test]
    fn option_values() {
        let c = cmd(&["-o", "out", "--output=o2"]);
        assert_eq!(c.option_value(Some('o'), &["output"]).unwrap(), "out");
        let c = cmd(&["--output=o2"]);
        assert_eq!(c.option_value(Some('o'), &["output"]).unwrap(), "o2");
    }
}

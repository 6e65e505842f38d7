//! Property tests (proptest) in the normal suite: the parsers never panic on any input, the
//! analysis keeps the structure of what it was given, and the ledger store agrees with an
//! in-memory model under any sequence of updates. The cargo-fuzz targets (fuzz/) explore the
//! same entry points for longer; a crash found there becomes a case here.

use palisade::event::HookEvent;
use palisade::ledger::{Ledger, LedgerEntry, LedgerStore};
use palisade::locations::Locations;
use palisade::policy::Policy;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

fn judge(tool: &str, input: serde_json::Value) -> palisade::verdict::Verdict {
    let policy = Policy::default();
    let loc = Locations::from_vars(|k| (k == "HOME").then(|| "/home/dev".into()));
    let dir = Path::new("/home/dev/project");
    let scope = palisade::hook::scope_for(&policy, &loc, dir, dir, false);
    let event: HookEvent = serde_json::from_value(serde_json::json!({
        "session_id": "p",
        "cwd": dir,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
    }))
    .unwrap();
    let call = palisade::normalize::normalize(&event, &scope);
    palisade::evaluate::evaluate(&policy, &call, &scope)
}

/// Shell-flavoured text: the characters that make shell syntax, plus letters.
fn shellish() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-z ~/.|&;<>()$`'\"\\\\{}\\n*?=\\-\\[\\]#!0-9]{0,160}")
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn shell_analysis_never_panics(line in shellish()) {
        let _ = palisade::shell::analyse(&line);
        let _ = judge("Bash", serde_json::json!({"command": line}));
    }

    #[test]
    fn any_text_is_analysed_without_panic(line in any::<String>()) {
        let _ = palisade::shell::analyse(&line);
    }

    /// Programs whose script or options name commands (awk, sed, tar, ssh, vim, gdb,
    /// expect): any text in that place is read without panicking.
    #[test]
    fn program_scripts_and_option_commands_never_panic(text in any::<String>()) {
        let q = format!("'{}'", text.replace('\'', "'\\''"));
        for line in [
            format!("awk {q} f"),
            format!("sed -n {q} f"),
            format!("sed -e {q}"),
            format!("tar --checkpoint-action=exec={q} -cf x ."),
            format!("ssh -o {q} host"),
            format!("vim -c {q} f"),
            format!("gdb -ex {q}"),
            format!("expect -c {q}"),
            format!("perl -e {q}"),
        ] {
            let _ = palisade::shell::analyse(&line);
        }
    }

    #[test]
    fn a_pipeline_keeps_its_stages_in_order(words in proptest::collection::vec("[a-z]{1,8}", 1..60)) {
        // Words that are shell keywords would change the grammar.
        prop_assume!(words.iter().all(|w| !matches!(w.as_str(),
            "if" | "then" | "else" | "elif" | "fi" | "do" | "done" | "case" | "esac" | "while"
            | "until" | "for" | "in" | "function" | "select" | "time" | "coproc"
            // PowerShell-only aliases: such a line is also read as PowerShell (both readings kept).
            | "iex" | "iwr" | "irm" | "saps" | "gci" | "sls" | "ni" | "gi" | "gp" | "ri"
            // Builtins that run their arguments as code: bare, they run nothing.
            | "eval")));
        let line = words.join(" | ");
        let a = palisade::shell::analyse(&line);
        prop_assert_eq!(a.commands.len(), words.len());
        for (i, c) in a.commands.iter().enumerate() {
            prop_assert_eq!(c.stdin_from, i.checked_sub(1));
        }
        // No function is defined, so no pipeline of programs is a fork bomb.
        let v = judge("Bash", serde_json::json!({"command": line}));
        prop_assert!(v.rule.as_deref().is_none_or(|r| !r.contains("fork-bomb")), "{:?}", v);
    }

    #[test]
    fn any_tool_and_input_is_judged_deterministically(
        tool in prop_oneof![
            Just("Bash".to_string()), Just("Write".to_string()), Just("Edit".to_string()),
            Just("MultiEdit".to_string()), Just("Read".to_string()), Just("WebFetch".to_string()),
            "mcp__[a-z_]{1,12}__[a-z_]{1,12}", "[A-Za-z_]{1,16}",
        ],
        key in prop_oneof![Just("command"), Just("file_path"), Just("content"), Just("url"),
            Just("sql"), Just("path"), Just("edits")],
        value in shellish(),
    ) {
        let input = serde_json::json!({ key: value, "file_path": "x/../../etc/passwd" });
        let a = judge(&tool, input.clone());
        let b = judge(&tool, input);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn the_audit_verifier_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        std::fs::write(&log, &bytes).unwrap();
        let _ = palisade::audit::verify::verify(&log);
    }
}

fn entry(path: &str, n: u64) -> LedgerEntry {
    LedgerEntry {
        path: path.into(),
        sha256: None,
        size: Some(n),
        tool: "Write".into(),
        tool_use_id: Some(format!("t{n}")),
        summary: format!("write {n}"),
        how: "Write".into(),
        from_network: n.is_multiple_of(3),
        executable: false,
        excerpt: Some(format!("echo {n}\n")),
        excerpt_complete: true,
        analysis: None,
        receipt: None,
        written_at: n,
        confirmed: false,
        patch: None,
    }
}

#[derive(Debug, Clone)]
enum Op {
    Put(u8, u64),
    Remove(u8),
    Read(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..12, any::<u64>()).prop_map(|(p, n)| Op::Put(p, n % 1_000_000)),
        (0u8..12).prop_map(Op::Remove),
        (0u8..12).prop_map(Op::Read),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_ledger_store_agrees_with_a_model(ops in proptest::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let mut model: BTreeMap<String, LedgerEntry> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Put(p, n) => {
                    let path = format!("/p/{p}.sh");
                    let e = entry(&path, n);
                    store.update_keys("s", std::slice::from_ref(&path), |l: &mut Ledger| {
                        l.entries.insert(path.clone(), e.clone());
                        ((), true)
                    }).unwrap();
                    model.insert(path, e);
                }
                Op::Remove(p) => {
                    let path = format!("/p/{p}.sh");
                    // A removal is seen only for a row the change read.
                    store.update_keys("s", std::slice::from_ref(&path), |l: &mut Ledger| {
                        let had = l.get(Path::new(&path)).is_some();
                        l.entries.remove(&path);
                        ((), had)
                    }).unwrap();
                    model.remove(&path);
                }
                Op::Read(p) => {
                    let path = format!("/p/{p}.sh");
                    let got = store
                        .read("s", &[], |l| l.get(Path::new(&path)).cloned())
                        .unwrap();
                    prop_assert_eq!(got.as_ref(), model.get(&path));
                }
            }
        }
        prop_assert_eq!(store.load("s").unwrap().entries, model);
    }
}

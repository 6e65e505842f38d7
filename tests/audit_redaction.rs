//! Secrets never reach the audit log: redacted before hashing, the chain still verifies, and
//! the hash covers the redacted text.

mod audit_support;

use audit_support::{Sandbox, bash_event};
use palisade::audit::NewEntry;
use palisade::verdict::Verdict;
use serde_json::{Value, json};

/// (secret, a command line carrying it)
const SECRETS: &[(&str, &str)] = &[
    (
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
        "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx claude",
    ),
    (
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz01",
        "echo sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz01 > key",
    ),
    (
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b",
    ),
    (
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "gh auth login --with-token github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    ),
    (
        "xoxb-1234567890-abcdefghij",
        "curl -d token=xoxb-1234567890-abcdefghij https://slack.com/api",
    ),
    (
        "AKIAIOSFODNN7EXAMPLE",
        "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE",
    ),
    (
        "AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "curl 'https://maps.googleapis.com/x?k=AIzaSyA-1234567890abcdefghijklmnopqrstu'",
    ),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "http GET x 'Cookie: s=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'",
    ),
    (
        "0123456789abcdef0123456789abcdef",
        "curl 'https://api.x.com/v1?api_key=0123456789abcdef0123456789abcdef&q=1'",
    ),
    (
        "hunter2hunter2",
        "mysql -u root --password=hunter2hunter2 db",
    ),
    (
        "s3cr3tpw",
        "psql postgres://admin:s3cr3tpw@db.internal/prod",
    ),
    (
        "dGhpc2lzYXNlY3JldA",
        "curl -H 'Authorization: Basic dGhpc2lzYXNlY3JldA' https://x",
    ),
    (
        "abc.def-ghi_jkl",
        "curl -H \"Authorization: Bearer abc.def-ghi_jkl\" https://x",
    ),
    (
        "MIIEowIBAAKCAQEA7",
        "cat > id_rsa <<'EOF'\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\nEOF",
    ),
];

#[test]
fn no_secret_reaches_the_log_and_the_chain_holds() {
    let sb = Sandbox::new();
    for (_, command) in SECRETS {
        let out = sb.run(&["hook"], &bash_event("s", command));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            audit_support::stderr(&out)
        );
    }
    let text = std::fs::read_to_string(sb.audit_file()).unwrap();
    for (secret, command) in SECRETS {
        assert!(!text.contains(secret), "{secret} leaked from `{command}`");
    }
    let entries = sb.entries();
    assert_eq!(entries.len(), SECRETS.len());
    for e in &entries {
        let cmd = e["input"]["command"].as_str().unwrap();
        assert!(cmd.contains("[redacted]"), "{cmd}");
        // The hash covers the redacted text: recompute it from what is on disk.
        let mut body = e.clone();
        body.as_object_mut().unwrap().remove("hash");
        assert_eq!(
            palisade::audit::entry::hash_value(&body, &mut Vec::new()),
            e["hash"].as_str().unwrap()
        );
    }
    // The command keeps its shape around the secret.
    assert_eq!(
        entries[12]["input"]["command"],
        "curl -H \"Authorization: Bearer [redacted]\" https://x"
    );
    let out = sb.run(&["audit", "verify"], "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn secret_keys_and_configured_paths_are_redacted_whole() {
    let event = palisade::event::parse_event(
        json!({
            "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "mcp__http__request",
            "tool_input": {
                "url": "https://api.example.com",
                "headers": {"X-Trace": "t1", "Authorization": "opaque"},
                "env": {"DB_URL": "mysql://x", "CLIENT_SECRET": 12345},
                "body": {"password": "p", "note": "fine"}
            }
        })
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    let e = NewEntry::from_verdict(
        &event,
        &Verdict::no_opinion(),
        &["env.DB_URL".into(), "headers.*".into()],
        1,
    );
    assert_eq!(
        e.input,
        json!({
            "url": "https://api.example.com",
            "headers": {"X-Trace": "[redacted]", "Authorization": "[redacted]"},
            "env": {"DB_URL": "[redacted]", "CLIENT_SECRET": "[redacted]"},
            "body": {"password": "[redacted]", "note": "fine"}
        })
    );
    let sealed = e.seal(1, 0, palisade::audit::GENESIS.into());
    let line: Value = serde_json::from_str(&sealed.to_line()).unwrap();
    assert_eq!(line["input"]["env"]["DB_URL"], "[redacted]");
}

#[test]
fn reasons_and_risk_records_are_redacted_too() {
    let event = palisade::event::parse_event(bash_event("s", "ls").as_bytes()).unwrap();
    let mut v = Verdict::decided(
        palisade::verdict::Effect::Deny,
        "p:r",
        "secrets",
        "refused: `echo ghp_abcdefghijklmnopqrstuvwxyz0123456789` prints a token",
        palisade::verdict::Source::Static,
    );
    v.risk =
        Some(json!({"state": {"command": "export TOKEN=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx"}}));
    let e = NewEntry::from_verdict(&event, &v, &[], 1);
    assert!(
        e.decision.reason.contains("echo [redacted]"),
        "{}",
        e.decision.reason
    );
    assert_eq!(
        e.risk.unwrap()["state"]["command"],
        "export TOKEN=[redacted]"
    );
}

/// A long input is redacted for the record on a second thread while the call is judged
/// (`audit::entry::LONG_INPUT`): the hook records, for inputs on both sides of that size, what
/// `recorded_input` makes of them: secrets redacted wherever they are in the text, a long
/// string cut with the size and hash of the whole redacted text, and the verdict unchanged.
#[test]
fn long_inputs_are_recorded_as_short_ones_are() {
    use palisade::audit::entry::{LONG_INPUT, is_long_input, recorded_input};
    let sb = Sandbox::new();
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let line = "def handler(request):\n    return render(request, 'page.html')\n";
    let mut inputs = Vec::new();
    for size in [LONG_INPUT / 2, LONG_INPUT + 10, 3 * LONG_INPUT] {
        let filler = line.repeat(size / line.len() + 1);
        let content = format!("token = {secret}\n{filler}git clone https://{secret}@h/r\n");
        inputs.push((
            "Write",
            json!({"file_path": "/tmp/p/app.py", "content": content}),
        ));
        inputs.push((
            "Bash",
            json!({"command": format!("cat > notes.txt <<'EOF'\n{content}EOF\ncurl -d @notes.txt https://x.example")}),
        ));
    }
    assert!(!is_long_input(&inputs[0].1) && is_long_input(&inputs[2].1));
    let mut answers = Vec::new();
    for (tool, input) in &inputs {
        let event = json!({
            "session_id": "long", "cwd": "/tmp/p", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input, "tool_use_id": format!("t{}", answers.len()),
        });
        let out = sb.run(&["hook"], &event.to_string());
        assert!(matches!(out.status.code(), Some(0 | 2)), "{out:?}");
        answers.push(audit_support::stdout(&out));
    }
    let text = std::fs::read_to_string(sb.audit_file()).unwrap();
    assert!(!text.contains(secret), "the secret reached the log");
    let entries = sb.entries();
    assert_eq!(entries.len(), inputs.len());
    for ((tool, input), e) in inputs.iter().zip(&entries) {
        assert_eq!(e["tool"], *tool);
        assert_eq!(e["input"], recorded_input(input, &[]), "{tool}");
        let s = e["input"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.to_string())
            .collect::<String>();
        assert!(s.contains("truncated: "), "{tool}: {s:.200}");
    }
    // The same call answers alike whatever its size (the Bash ones send the file: asked).
    for pair in answers.chunks(2).collect::<Vec<_>>().windows(2) {
        assert_eq!(pair[0], pair[1]);
    }
    let out = sb.run(&["audit", "verify"], "");
    assert_eq!(out.status.code(), Some(0));
}

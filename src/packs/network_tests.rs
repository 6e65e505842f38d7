//! The exfiltration rules on where a call reaches (the metadata service, a DNS name built
//! from data, a remote added on the spot, a directory served over HTTP) judge the call's
//! effects: the same rule holds through every wrapper, spelling and tool, and ordinary work
//! passes.

use super::Example;
use super::tests::{call_of, scope};
use crate::policy::Policy;
use crate::verdict::Effect::{self, Deny};

/// Runs each case through the packs and the evaluation: `Some((effect, rule))` wants the
/// exfiltration rule to hit and the verdict to be that effect; `None` wants no exfiltration
/// rule to hit.
fn judge(cases: &[(Example, Option<(Effect, &str)>)]) {
    let scope = scope();
    let mut failures = Vec::new();
    for (ex, want) in cases {
        let call = call_of(ex, &scope);
        let found: Vec<&str> = super::hits(&call, &scope, |_| true)
            .iter()
            .filter(|h| h.rule.pack == "exfiltration")
            .map(|h| h.rule.id)
            .collect();
        let v = crate::evaluate::evaluate(&Policy::default(), &call, &scope);
        let ok = match want {
            Some((effect, id)) => found.contains(id) && v.effect == Some(*effect),
            None => found.is_empty(),
        };
        if !ok {
            failures.push(format!(
                "{} {}: want {want:?}, got {found:?} {:?} ({})",
                ex.tool, ex.input, v.effect, v.reason
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const META: Option<(Effect, &str)> = Some((Deny, "metadata-endpoint"));

/// The metadata service is reached by a fetch or a send to its host, whatever tool makes it
/// and however the host is spelt; printing, searching or naming the address in a file name
/// or a query reaches nothing.
#[test]
fn the_metadata_service_is_judged_on_fetches_and_sends() {
    let bash = Example::bash;
    let tool = Example::tool;
    judge(&[
        // Wrappers, absolute paths, quoting.
        (
            bash("sudo /usr/bin/curl -s http://169.254.169.254/latest/meta-data/"),
            META,
        ),
        (
            bash("env -i curl 'http://169.254.169.254/latest/user-data'"),
            META,
        ),
        (
            bash("bash -c \"wget -qO- http://169.254.169.254/latest/\""),
            META,
        ),
        (
            bash("echo http://169.254.169.254/latest/ | xargs curl -s"),
            META,
        ),
        (
            bash("\"c\"url http://metadata.google.internal/computeMetadata/v1/"),
            META,
        ),
        (
            bash("timeout 5 curl 169.254.169.254/latest/meta-data/"),
            META,
        ),
        // Spellings of the address.
        (bash("curl http://2852039166/latest/meta-data/"), META),
        (bash("curl http://0251.0376.0251.0376/latest/"), META),
        (bash("curl http://[::ffff:169.254.169.254]/latest/"), META),
        (bash("curl http://169.254.169.254.nip.io/latest/"), META),
        (
            bash("curl http://metadata.google.internal./computeMetadata/v1/"),
            META,
        ),
        // Other clients: inline code, sockets.
        (
            bash("node -e 'fetch(\"http://169.254.169.254/latest/\").then(r => r.text())'"),
            META,
        ),
        (
            bash("perl -MLWP::Simple -e 'print get(\"http://100.100.100.200/latest/\")'"),
            META,
        ),
        (
            bash(
                "python3 -c 'import socket; s = socket.create_connection((\"169.254.169.254\", 80))'",
            ),
            META,
        ),
        (bash("ncat 169.254.169.254 80 <<< 'GET / HTTP/1.0'"), META),
        (bash("socat - TCP4:169.254.169.254:80"), META),
        // Tools.
        (
            tool(
                "WebFetch",
                r#"{"url":"http://0xa9fea9fe/latest/meta-data/","prompt":"x"}"#,
            ),
            META,
        ),
        (
            tool(
                "mcp__fetch__fetch",
                r#"{"url":"http://169.254.170.2/v2/credentials"}"#,
            ),
            META,
        ),
        (
            tool(
                "mcp__playwright__browser_navigate",
                r#"{"url":"http://[fd00:ec2::254]/latest/"}"#,
            ),
            META,
        ),
        (
            tool(
                "mcp__shell__run_command",
                r#"{"command":"curl -s http://169.254.169.254/latest/"}"#,
            ),
            META,
        ),
        // Ordinary work.
        (bash("curl http://localhost:8080/metadata"), None),
        (bash("curl -s https://example.com/api/metadata"), None),
        (bash("echo 169.254.169.254"), None),
        (bash("grep -rn 169.254.169.254 docs/"), None),
        (
            bash("curl -o 169.254.169.254.txt https://example.com/"),
            None,
        ),
        (
            bash("curl 'https://duckduckgo.com/html/?q=169.254.169.254'"),
            None,
        ),
        (bash("ping -c1 169.254.1.1"), None),
        (bash("python3 -c 'print(\"169.254 is link-local\")'"), None),
        (
            tool(
                "WebFetch",
                r#"{"url":"https://cloud.google.com/compute/docs/metadata/overview","prompt":"x"}"#,
            ),
            None,
        ),
        (
            tool(
                "mcp__fetch__fetch",
                r#"{"url":"http://127.0.0.1:3000/metadata"}"#,
            ),
            None,
        ),
    ]);
}

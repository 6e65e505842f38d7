//! database: dropping, truncating or wiping databases.

use super::{Check, Example, Rule};
use crate::effects::Effect;
use crate::normalize::{Call, CallKind, Scope};
use crate::shell::{Command, ShellAnalysis};
use crate::verdict::Effect::Ask;
use regex::Regex;
use std::sync::LazyLock;

const PACK: &str = "database";

static DESTRUCTIVE_SQL: LazyLock<Regex> = LazyLock::new(|| {
    // A mongo method call follows a `)` as often as a name (`db.getCollection('u').drop()`),
    // so it needs no word boundary before its dot.
    Regex::new(r"(?is)\b(drop\s+(database|table|schema|index|view|collection|keyspace|user|role)\b|truncate\s+(table\s+)?\w|delete\s+from\s+[\w.`\x22\[\]]+\s*(;|$|\))|alter\s+table\s+\S+\s+drop\b|flushall|flushdb|dropdatabase\s*\()|\.drop\s*\(\s*\)|\.(deletemany|remove)\s*\(\s*(\{\s*\})?\s*\)")
        .expect("static regex")
});

const SQL_CLIENTS: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlcmd",
    "cqlsh",
    "clickhouse-client",
    "clickhouse",
    "duckdb",
    "mongo",
    "mongosh",
    "redis-cli",
    "cockroach",
    "snowsql",
    "bq",
    "spanner-cli",
    "usql",
    "pgcli",
    "mycli",
    "litecli",
];

/// The SQL (or shell-of-database) text a client would run: inline options, operands, here-docs
/// and what is piped in from `echo`/`printf`.
fn statements(a: &ShellAnalysis, c: &Command) -> String {
    let mut text: Vec<&str> = c.args.iter().map(|w| w.text.as_str()).collect();
    if let Some(s) = &c.stdin_text {
        text.push(s);
    }
    if let Some(up) = c.stdin_from.and_then(|i| a.commands.get(i))
        && matches!(up.program.as_str(), "echo" | "printf" | "cat")
    {
        text.extend(up.args.iter().map(|w| w.text.as_str()));
        if let Some(s) = &up.stdin_text {
            text.push(s);
        }
    }
    text.join(" ")
}

/// SQL with `-- …` and `/* … */` comments removed, so a commented-out `WHERE` counts as absent.
fn without_comments(sql: &str) -> String {
    static COMMENT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?s)(^|\s)--(\s[^\n]*|$)|/\*.*?\*/").expect("static regex"));
    COMMENT.replace_all(sql, " ").into_owned()
}

/// A client whose command line gives all its statements is judged by them (its `Query`
/// effects, as an MCP SQL tool's statement is); any other by the text it is given.
fn destructive_sql(call: &Call, _: &Scope) -> Option<String> {
    let CallKind::Shell { analysis: a, .. } = &call.kind else {
        return None;
    };
    a.commands
        .iter()
        .enumerate()
        .filter(|(_, c)| SQL_CLIENTS.contains(&c.program.as_str()))
        .find_map(|(i, c)| {
            let queries: Vec<&str> = call
                .effects
                .iter()
                .filter_map(|e| match e {
                    Effect::Query {
                        statement,
                        command: Some(j),
                        ..
                    } if *j == i => Some(statement.as_str()),
                    _ => None,
                })
                .collect();
            let given = if queries.is_empty() {
                statements(a, c)
            } else {
                queries.join(";\n")
            };
            let text = without_comments(&given);
            if let Some(m) = DESTRUCTIVE_SQL.find(&text) {
                return Some(format!("`{}` runs `{}`", c.program, m.as_str().trim()));
            }
            if let Some(stmt) = unbounded_update(&text) {
                return Some(format!("`{}` runs `{stmt}` on every row", c.program));
            }
            // `redis-cli --scan | xargs redis-cli del`: keys not known in advance.
            (c.program == "redis-cli"
                && c.args_from_stdin
                && c.operands().first().is_some_and(|o| {
                    o.text.eq_ignore_ascii_case("del") || o.text.eq_ignore_ascii_case("unlink")
                }))
            .then(|| "`redis-cli del` deletes keys listed by another command".to_string())
        })
}

/// `UPDATE t SET …` (or `DELETE FROM t …`) with no `WHERE` in its statement, or with a
/// `WHERE` that holds for every row (`1=1`, `true`, `id = id`, `… OR 'a'='a'`): every row.
fn unbounded_update(sql: &str) -> Option<String> {
    static UPDATE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?is)\b(?:update\s+[\w.`\x22\[\]]+\s+set|delete\s+from\s+[\w.`\x22\[\]]+)\b")
            .expect("static regex")
    });
    static WHERE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?is)\bwhere\b(.*)").expect("static regex"));
    sql.split(';').find_map(|stmt| {
        let m = UPDATE.find(stmt)?;
        let rest = &stmt[m.end()..];
        let unbounded = match WHERE.captures(rest) {
            None => m.as_str()[..6].eq_ignore_ascii_case("update"),
            Some(c) => always_true(&c[1]),
        };
        unbounded.then(|| m.as_str().split_whitespace().collect::<Vec<_>>().join(" "))
    })
}

/// A condition true for every row: one of its top-level `OR` terms always holds.
fn always_true(cond: &str) -> bool {
    static END: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(order\s+by|limit|returning|group\s+by)\b").expect("static regex")
    });
    let lower = cond.to_ascii_lowercase();
    let cond = match END.find(&lower) {
        Some(m) => &lower[..m.start()],
        None => &lower[..],
    };
    let cond = cond.replace(['(', ')'], " ");
    cond.split(" or ").any(|term| {
        // A term joined by AND holds only if every part does.
        term.split(" and ").all(term_true)
    })
}

/// `1=1`, `'a' = 'a'`, `x = x`, `1 <> 2`, `true`, `1`, `not false`, `x like '%'`.
fn term_true(t: &str) -> bool {
    let t = t.trim();
    if matches!(t, "true" | "1" | "not false" | "not 0" | "1 is not null") {
        return true;
    }
    if let Some((l, r)) = t.split_once(" like ") {
        return !l.trim().is_empty() && r.trim() == "'%'";
    }
    let literal = |s: &str| {
        s.parse::<f64>().is_ok() || (s.len() >= 2 && s.starts_with('\'') && s.ends_with('\''))
    };
    for op in ["<>", "!=", ">=", "<=", "==", "="] {
        if let Some((l, r)) = t.split_once(op) {
            // One word on the left; on the right the first word, since the statement may
            // run on into the client's next words (`-e '…' app`).
            let l = l.trim();
            let r = r.split_whitespace().next().unwrap_or("");
            if l.is_empty() || r.is_empty() || l.contains(char::is_whitespace) {
                return false;
            }
            return match op {
                "<>" | "!=" => literal(l) && literal(r) && l != r,
                _ => l == r,
            };
        }
    }
    false
}

/// `curl -X DELETE …/_all`, index deletes on search and document stores.
fn http_delete_store(c: &Command, _: &Scope) -> Option<String> {
    let delete = c.args.iter().enumerate().any(|(i, a)| {
        let t = a.text.to_ascii_uppercase();
        t == "-XDELETE"
            || t == "--REQUEST=DELETE"
            || ((t == "-X" || t == "--REQUEST")
                && c.args
                    .get(i + 1)
                    .is_some_and(|v| v.text.eq_ignore_ascii_case("DELETE")))
            || (c.program != "curl" && t == "DELETE")
    });
    if !delete {
        return None;
    }
    let url = c
        .args
        .iter()
        .find(|a| a.text.contains("://") || a.text.contains(':'))?;
    let u = url.text.to_ascii_lowercase();
    let store_port = [
        ":9200", ":9300", ":5984", ":8086", ":6333", ":8983", ":7474", ":8529", ":8108",
    ]
    .iter()
    .any(|p| u.contains(p));
    let wide = u.contains("_all")
        || u.contains('*')
        || u.contains("/_data_stream")
        || u.contains("/_index");
    let store = store_port
        || [
            "elastic",
            "opensearch",
            "couchdb",
            "solr",
            "influx",
            "qdrant",
            "typesense",
            "meili",
        ]
        .iter()
        .any(|n| u.contains(n));
    (wide || store).then(|| format!("an HTTP DELETE of `{}`", url.text))
}

fn drop_tools(c: &Command, _: &Scope) -> Option<String> {
    let mut ops: Vec<&str> = c.operands().iter().map(|w| w.text.as_str()).collect();
    let mut program = c.program.as_str();
    // `yarn prisma …`, `pnpm rails …`: the package manager runs a project binary.
    if matches!(program, "yarn" | "pnpm") && !ops.is_empty() {
        program = ops.remove(0);
    }
    let has = |x: &str| ops.contains(&x);
    match program {
        "dropdb" | "dropuser" => Some(format!("`{}` deletes a database object", c.program)),
        "mysqladmin" if has("drop") => Some("`mysqladmin drop` deletes a database".into()),
        "rails" | "rake" | "bin/rails" | "rake.rb" => ops
            .iter()
            .find(|o| {
                matches!(
                    **o,
                    "db:drop" | "db:reset" | "db:schema:load" | "db:purge" | "db:truncate_all"
                )
            })
            .map(|o| format!("`{} {o}` wipes the database", c.program)),
        "prisma" => {
            let reset = (has("migrate") && has("reset"))
                || (has("db")
                    && has("push")
                    && c.has_flag(None, &["force-reset", "accept-data-loss"]));
            reset.then(|| "prisma resets the database".into())
        }
        "python" | "python3" | "django-admin" => {
            let manage = c.program == "django-admin"
                || ops.first().is_some_and(|o| o.ends_with("manage.py"));
            (manage
                && ops
                    .iter()
                    .any(|o| matches!(*o, "flush" | "reset_db" | "sqlflush")))
            .then(|| "Django `flush` deletes all data".into())
        }
        _ => None,
    }
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "http-delete-store",
        pack: PACK,
        effect: Ask,
        reason: "An HTTP DELETE on a search or document store deletes indices or data",
        programs: &["curl", "http", "https", "xh", "httpie"],
        check: Check::Command(http_delete_store),
        refused: &[
            Example::bash("curl -X DELETE http://localhost:9200/_all"),
            Example::bash("curl -XDELETE 'https://es.example/logs-*'"),
            Example::bash("curl --request DELETE http://couchdb.example:5984/users"),
            Example::bash("http DELETE https://search.example/_all"),
        ],
        allowed: &[
            Example::bash("curl -X DELETE http://localhost:3000/api/todos/1"),
            Example::bash("curl http://localhost:9200/_cat/indices"),
        ],
    },
    Rule {
        id: "destructive-sql",
        pack: PACK,
        effect: Ask,
        reason: "Dropping, truncating or wiping database data needs confirmation",
        programs: &[],
        check: Check::Call(destructive_sql),
        refused: &[
            Example::bash("psql -c 'DROP DATABASE app'"),
            Example::bash("mysql -e \"truncate table users\" app"),
            Example::bash("sqlite3 app.db 'DELETE FROM users;'"),
            Example::bash("echo 'DROP TABLE users;' | psql app"),
            Example::bash("psql app <<'SQL'\nDROP SCHEMA public CASCADE;\nSQL"),
            Example::bash("redis-cli FLUSHALL"),
            Example::bash("docker exec db psql -U postgres -c 'DROP DATABASE app'"),
            Example::bash("psql -c 'DELETE FROM users -- WHERE id=1'"),
            Example::bash("psql -c 'UPDATE accounts SET balance=0'"),
            // The statement alone, not the database named after it, is what runs.
            Example::bash("psql -c 'DELETE FROM users' shop"),
            Example::bash("mysql -u app -e 'DELETE FROM orders' shop"),
            Example::bash("psql -c 'UPDATE accounts SET balance=0 WHERE 1=1'"),
            Example::bash("mysql -e \"DELETE FROM users WHERE 'a'='a'\" app"),
            Example::bash("psql -c 'UPDATE users SET admin=true WHERE id = 5 OR 1 = 1'"),
            Example::bash("sqlite3 app.db 'DELETE FROM logs WHERE (true)'"),
            Example::bash("mysql -e 'update users set admin=1; select 1' app"),
            Example::bash("redis-cli --scan --pattern 'sess:*' | xargs redis-cli del"),
            Example::bash("mongosh app --eval 'db.dropDatabase()'"),
            Example::bash("mongosh app --eval \"db.getCollection('users').drop()\""),
            Example::bash("mongosh app --eval 'db.users.deleteMany({})'"),
        ],
        allowed: &[
            Example::bash("psql -c 'SELECT 1'"),
            Example::bash("sqlite3 app.db '.tables'"),
            Example::bash("mysql -e 'DELETE FROM sessions WHERE expires < NOW()' app"),
            Example::bash("redis-cli GET key"),
            Example::bash("psql -c \"UPDATE users SET name='x' WHERE id=1\""),
            Example::bash("psql -c \"UPDATE users SET n=1 WHERE id = 1 AND 1=1\""),
            Example::bash("psql -c \"DELETE FROM t WHERE a = b OR c = 'x'\""),
            Example::bash("redis-cli --scan --pattern 'sess:*'"),
        ],
    },
    Rule {
        id: "database-reset",
        pack: PACK,
        effect: Ask,
        reason: "Dropping or resetting a database deletes its data",
        programs: &[
            "dropdb",
            "dropuser",
            "mysqladmin",
            "rails",
            "rake",
            "bin/rails",
            "prisma",
            "python",
            "python3",
            "django-admin",
            "yarn",
            "pnpm",
        ],
        check: Check::Command(drop_tools),
        refused: &[
            Example::bash("dropdb app_dev"),
            Example::bash("rails db:drop"),
            Example::bash("npx prisma migrate reset --force"),
            Example::bash("python manage.py flush --no-input"),
            Example::bash("yarn prisma migrate reset"),
            Example::bash("bundle exec rails db:drop"),
        ],
        allowed: &[
            Example::bash("rails db:migrate"),
            Example::bash("python manage.py migrate"),
            Example::bash("npx prisma migrate dev"),
        ],
    },
];

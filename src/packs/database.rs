//! database: dropping, truncating or wiping databases.

use super::{Check, Example, Rule};
use crate::effects::Effect;
use crate::normalize::{Call, CallKind, Scope};
use crate::shell::{Command, ShellAnalysis};
use crate::verdict::Effect::Ask;
use regex::bytes::{Regex, RegexBuilder};
use regex_automata::meta;
use regex_automata::util::syntax;
use std::sync::LazyLock;

const PACK: &str = "database";

/// Unicode's white space as UTF-8 bytes: the SQL patterns run on bytes with ASCII classes
/// (SQL keywords are ASCII, and engines fold their case as ASCII), which compile in a small
/// fraction of the instructions Unicode `\s`/`\w` classes take, in a process that lives for
/// one call; spelling the spaces out keeps a statement split by a no-break space read as the
/// Unicode patterns read it.
const WS: &str = r"(?:[\t\n\x0B\x0C\r ]|\xC2[\x85\xA0]|\xE1\x9A\x80|\xE2\x80[\x80-\x8A\xA8\xA9\xAF]|\xE2\x81\x9F|\xE3\x80\x80)";

/// One SQL pattern's source for bytes: `\s` is [`WS`], and `\w` takes any non-ASCII
/// character too (names in other scripts; in a class, any run of non-ASCII bytes).
fn sql_pattern(pattern: &str) -> String {
    pattern
        .replace(r"[\w", "\u{0}")
        .replace(r"\w", r"(?:\w|[\xC0-\xFF][\x80-\xBF]*)")
        .replace('\u{0}', r"[\w\x80-\xFF")
        .replace(r"\s", WS)
}

/// One SQL pattern, matching on bytes with ASCII classes.
fn sql_regex(pattern: &str) -> Regex {
    RegexBuilder::new(&sql_pattern(pattern))
        .unicode(false)
        .build()
        .expect("static SQL pattern")
}

/// [`sql_regex`] without a literal prefilter, for a pattern run only on a text that
/// [`DESTRUCTIVE_WORDS`] already let through: building the prefilter for the case-folded
/// keywords was 2.2 M of the 3.6 M instructions its compilation took.
fn sql_matcher(pattern: &str) -> meta::Regex {
    meta::Builder::new()
        .configure(meta::Config::new().auto_prefilter(false))
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build(&sql_pattern(pattern))
        .expect("static SQL pattern")
}

/// Lowercase words one of which every match of [`DESTRUCTIVE_SQL`] holds: a text with none is
/// not matched (nor the pattern compiled).
const DESTRUCTIVE_WORDS: &[&str] = &["drop", "truncate", "delete", "flush", "remove"];

static DESTRUCTIVE_SQL: LazyLock<meta::Regex> = LazyLock::new(|| {
    // A mongo method call follows a `)` as often as a name (`db.getCollection('u').drop()`),
    // so it needs no word boundary before its dot.
    sql_matcher(
        r"(?is)\b(drop\s+(database|table|schema|index|view|collection|keyspace|user|role|owned\s+by)\b|truncate\s+(table\s+)?\w|delete\s+from\s+[\w.`\x22\[\]]+\s*(;|$|\))|alter\s+table\s+\S+\s+drop\b|flushall|flushdb|dropdatabase\s*\()|\.drop\s*\(\s*\)|\.(deletemany|remove)\s*\(\s*(\{\s*\})?\s*\)",
    )
});

/// The statement a destructive pattern matched in `sql`, if any.
fn destructive_statement(sql: &str) -> Option<String> {
    let lower = sql.to_ascii_lowercase();
    if !DESTRUCTIVE_WORDS.iter().any(|w| lower.contains(w)) {
        return None;
    }
    DESTRUCTIVE_SQL.find(sql.as_bytes()).map(|m| {
        String::from_utf8_lossy(&sql.as_bytes()[m.range()])
            .trim()
            .to_string()
    })
}

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
    "valkey-cli",
    "keydb-cli",
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
    given_texts(a, c).join(" ")
}

/// The clients with shell escapes in their SQL (`\!`, `system`, `.shell`, `.system`).
const ESCAPING_CLIENTS: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "duckdb",
    "pgcli",
    "mycli",
    "litecli",
    "usql",
    "cockroach",
];

/// The shell commands SQL client `c` runs through the shell escapes of the text it is given
/// (`psql -c '\! cmd'`, `mysql -e 'system cmd'`, `sqlite3 db ".shell cmd"`, the same on
/// standard input, `COPY … PROGRAM 'cmd'`): each argument and input read as SQL text.
pub fn shell_escapes(a: &ShellAnalysis, c: &Command) -> Vec<String> {
    if !ESCAPING_CLIENTS.contains(&c.program.as_str()) {
        return Vec::new();
    }
    given_texts(a, c)
        .into_iter()
        .flat_map(crate::scan::sql_shell_commands)
        .collect()
}

/// Each text client `c` is given: its words, its here-doc or here-string, and what `echo`,
/// `printf` or `cat` pipe into it.
fn given_texts<'a>(a: &'a ShellAnalysis, c: &'a Command) -> Vec<&'a str> {
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
    text
}

/// SQL with `-- …` and `/* … */` comments removed, so a commented-out `WHERE` counts as absent.
fn without_comments(sql: &str) -> String {
    if !sql.contains("--") && !sql.contains("/*") {
        return sql.to_string();
    }
    static COMMENT: LazyLock<Regex> =
        LazyLock::new(|| sql_regex(r"(?s)(^|\s)--(\s[^\n]*|$)|/\*.*?\*/"));
    // A match starts and ends at ASCII bytes, so what is left is still UTF-8.
    String::from_utf8_lossy(&COMMENT.replace_all(sql.as_bytes(), &b" "[..])).into_owned()
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
            if let Some(m) = destructive_statement(&text) {
                return Some(format!("`{}` runs `{m}`", c.program));
            }
            if let Some(stmt) = unbounded_update(&text) {
                return Some(format!("`{}` runs `{stmt}` on every row", c.program));
            }
            if let Some(call) = update_of_every_document(&text) {
                return Some(format!("`{}` runs `{call}` on every document", c.program));
            }
            // `redis-cli --scan | xargs redis-cli del`: keys not known in advance.
            (matches!(c.program.as_str(), "redis-cli" | "valkey-cli" | "keydb-cli")
                && c.args_from_stdin
                && c.operands().first().is_some_and(|o| {
                    o.text.eq_ignore_ascii_case("del") || o.text.eq_ignore_ascii_case("unlink")
                }))
            .then(|| format!("`{} del` deletes keys listed by another command", c.program))
        })
}

/// `UPDATE t SET …` (or `DELETE FROM t …`) with no `WHERE` in its statement, or with a
/// `WHERE` that holds for every row (`1=1`, `true`, `id = id`, `… OR 'a'='a'`): every row.
fn unbounded_update(sql: &str) -> Option<String> {
    static UPDATE: LazyLock<Regex> = LazyLock::new(|| {
        // No word boundary after the name: on bytes, a name ending in a non-ASCII letter has none.
        sql_regex(r"(?is)\b(?:update\s+[\w.`\x22\[\]]+\s+set\b|delete\s+from\s+[\w.`\x22\[\]]+)")
    });
    static WHERE: LazyLock<Regex> = LazyLock::new(|| sql_regex(r"(?is)\bwhere\b(.*)"));
    let lower = sql.to_ascii_lowercase();
    if !lower.contains("update") && !lower.contains("delete") {
        return None;
    }
    sql.split(';').find_map(|stmt| {
        let m = UPDATE.find(stmt.as_bytes())?;
        let rest = &stmt.as_bytes()[m.end()..];
        let unbounded = match WHERE.captures(rest) {
            None => m.as_bytes()[..6].eq_ignore_ascii_case(b"update"),
            Some(c) => always_true(&String::from_utf8_lossy(&c[1])),
        };
        unbounded.then(|| {
            let text = String::from_utf8_lossy(m.as_bytes());
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        })
    })
}

/// A MongoDB update whose filter is empty (`db.users.updateMany({}, …)`, `.update({}, …,
/// {multi: true})`): every document of the collection changes.
fn update_of_every_document(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    ["updatemany", "replacemany"].iter().find_map(|call| {
        let at = lower.find(&format!(".{call}"))?;
        let rest = lower[at + call.len() + 1..]
            .trim_start()
            .strip_prefix('(')?;
        let rest = rest.trim_start().strip_prefix('{')?;
        rest.trim_start()
            .starts_with('}')
            .then(|| format!("{}({{}}, …)", &text[at + 1..at + 1 + call.len()]))
    })
}

/// A condition true for every row: one of its top-level `OR` terms always holds.
fn always_true(cond: &str) -> bool {
    static END: LazyLock<Regex> =
        LazyLock::new(|| sql_regex(r"(?i)\b(order\s+by|limit|returning|group\s+by)\b"));
    let lower = cond.to_ascii_lowercase();
    let cond = match END.find(lower.as_bytes()) {
        Some(m) => lower.get(..m.start()).unwrap_or(&lower),
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

/// Migration and schema tools' tasks that drop every table or the database (each word
/// present on the line): `php artisan migrate:fresh`, `alembic downgrade base`, `knex
/// migrate:rollback --all`, `flyway clean`…
const WIPING_TASKS: &[(&str, &[&str])] = &[
    ("artisan", &["migrate:fresh"]),
    ("artisan", &["migrate:reset"]),
    ("artisan", &["migrate:refresh"]),
    ("artisan", &["db:wipe"]),
    ("alembic", &["downgrade", "base"]),
    ("flask", &["db", "downgrade", "base"]),
    ("knex", &["migrate:rollback", "--all"]),
    ("sequelize", &["db:drop"]),
    ("sequelize", &["db:migrate:undo:all"]),
    ("sequelize-cli", &["db:drop"]),
    ("sequelize-cli", &["db:migrate:undo:all"]),
    ("typeorm", &["schema:drop"]),
    ("typeorm-ts-node-commonjs", &["schema:drop"]),
    ("typeorm-ts-node-esm", &["schema:drop"]),
    ("mix", &["ecto.drop"]),
    ("mix", &["ecto.reset"]),
    ("diesel", &["database", "reset"]),
    ("sqlx", &["database", "drop"]),
    ("sqlx", &["database", "reset"]),
    ("dbmate", &["drop"]),
    ("goose", &["reset"]),
    ("goose", &["down-to", "0"]),
    ("atlas", &["schema", "clean"]),
    ("sqitch", &["revert", "-y"]),
    ("mix", &["ecto.rollback", "--all"]),
    ("flyway", &["clean"]),
    ("liquibase", &["dropAll"]),
    ("liquibase", &["drop-all"]),
    ("migrate", &["drop"]),
    ("migrate", &["down", "-all"]),
    ("supabase", &["db", "reset"]),
    ("dotnet", &["ef", "database", "drop"]),
    ("dotnet-ef", &["database", "drop"]),
    ("influx", &["bucket", "delete"]),
];

/// The wiping task of `program` (a `WIPING_TASKS` entry) that `c` runs, if any.
fn wiping_task(c: &Command, program: &str) -> Option<String> {
    let words: Vec<&str> = c.args.iter().map(|w| w.text.as_str()).collect();
    WIPING_TASKS
        .iter()
        .filter(|(p, _)| *p == program)
        .find(|(_, task)| task.iter().all(|t| words.contains(t)))
        .map(|(_, task)| format!("`{program} {}` drops the database's tables", task.join(" ")))
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
        // Debian's wrapper removes a whole PostgreSQL cluster: its data directory with every
        // database in it.
        "pg_dropcluster" => Some("`pg_dropcluster` deletes a PostgreSQL cluster's data".into()),
        // A restore that drops what is there first: the database's current data goes.
        "pg_restore" if c.has_flag(Some('c'), &["clean"]) => {
            Some("`pg_restore --clean` drops the database's objects before restoring".into())
        }
        "mongorestore" if c.has_flag(None, &["drop"]) => {
            Some("`mongorestore --drop` drops each collection before restoring".into())
        }
        // A broker's topic or queue deleted or emptied, a stream removed.
        "kafka-topics" | "kafka-topics.sh" if c.has_flag(None, &["delete"]) => Some(format!(
            "`{} --delete` deletes a topic and its messages",
            c.program
        )),
        "rabbitmqctl" | "rabbitmqadmin"
            if ops.iter().any(|o| {
                matches!(
                    *o,
                    "purge_queue" | "delete_queue" | "delete_vhost" | "reset" | "force_reset"
                ) || (matches!(*o, "purge" | "delete") && has("queue"))
            }) =>
        {
            Some(format!("`{}` deletes or empties queues", c.program))
        }
        "nats" if (has("stream") || has("str")) && (has("rm") || has("purge") || has("delete")) => {
            Some("`nats stream rm|purge` deletes a stream's messages".into())
        }
        // A graph store's every node (`MATCH (n) DETACH DELETE n`).
        "cypher-shell"
            if c.args.iter().any(|a| {
                let q = a.text.to_ascii_lowercase();
                q.contains("detach delete") && !q.contains("where")
            }) =>
        {
            Some("`cypher-shell` deletes every matched node".into())
        }
        "mysqladmin" if has("drop") => Some("`mysqladmin drop` deletes a database".into()),
        "rails" | "rake" | "bin/rails" | "rake.rb" => ops
            .iter()
            .find(|o| {
                matches!(
                    **o,
                    "db:drop" | "db:reset" | "db:schema:load" | "db:purge" | "db:truncate_all"
                )
            })
            .map(|o| format!("`{} {o}` wipes the database", c.program))
            // `db:migrate VERSION=0` rolls every migration back.
            .or_else(|| {
                (has("db:migrate") && has("VERSION=0"))
                    .then(|| format!("`{} db:migrate VERSION=0` drops every table", c.program))
            }),
        "prisma" => {
            let reset = (has("migrate") && has("reset"))
                || (has("db")
                    && has("push")
                    && c.has_flag(None, &["force-reset", "accept-data-loss"]));
            reset.then(|| "prisma resets the database".into())
        }
        // Key-value stores' wholesale deletes: every key under a prefix (`etcdctl del ""
        // --prefix`, `consul kv delete -recurse app/`), every point of a bucket in a time range
        // that no predicate narrows (`influx delete --start … --stop …`).
        "etcdctl" if has("del") && c.has_flag(None, &["prefix", "from-key"]) => {
            Some("`etcdctl del --prefix` deletes every key under the prefix".into())
        }
        // consul's options take one dash.
        "consul"
            if has("kv")
                && has("delete")
                && c.args.iter().any(|a| {
                    let t = a.text.trim_start_matches('-');
                    a.text.starts_with('-') && (t == "recurse" || t.starts_with("recurse="))
                }) =>
        {
            Some("`consul kv delete -recurse` deletes every key under the prefix".into())
        }
        "influx" if ops.first() == Some(&"delete") && !c.has_flag(Some('p'), &["predicate"]) => {
            Some("`influx delete` without a predicate deletes every point in the range".into())
        }
        "php" if ops.first() == Some(&"artisan") => wiping_task(c, "artisan"),
        _ if WIPING_TASKS.iter().any(|(p, _)| *p == program) => wiping_task(c, program),
        "python" | "python3" | "django-admin" => {
            let manage = c.program == "django-admin"
                || ops.first().is_some_and(|o| o.ends_with("manage.py"));
            if !manage {
                return None;
            }
            if ops
                .iter()
                .any(|o| matches!(*o, "flush" | "reset_db" | "sqlflush"))
            {
                return Some("Django `flush` deletes all data".into());
            }
            // `migrate APP zero` unapplies every migration of the app: its tables go.
            (has("migrate") && has("zero"))
                .then(|| "Django `migrate … zero` drops the app's tables".into())
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
            Example::bash("mongosh --eval 'db.users.updateMany({}, {$unset: {email: 1}})'"),
            Example::bash("psql -c 'DROP OWNED BY app CASCADE'"),
            Example::bash("psql -c 'DROP DATABASE app'"),
            Example::bash("mysql -e \"truncate table users\" app"),
            Example::bash("sqlite3 app.db 'DELETE FROM users;'"),
            Example::bash("echo 'DROP TABLE users;' | psql app"),
            Example::bash("psql app <<'SQL'\nDROP SCHEMA public CASCADE;\nSQL"),
            Example::bash("redis-cli FLUSHALL"),
            Example::bash("valkey-cli -n 2 FLUSHDB"),
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
            Example::bash("keydb-cli --scan | xargs keydb-cli unlink"),
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
            Example::bash(
                "mongosh --eval 'db.users.updateMany({active: false}, {$set: {archived: true}})'",
            ),
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
            "pg_dropcluster",
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
            "php",
            "artisan",
            "alembic",
            "flask",
            "knex",
            "sequelize",
            "sequelize-cli",
            "typeorm",
            "typeorm-ts-node-commonjs",
            "typeorm-ts-node-esm",
            "mix",
            "diesel",
            "sqlx",
            "dbmate",
            "goose",
            "atlas",
            "sqitch",
            "flyway",
            "liquibase",
            "migrate",
            "supabase",
            "dotnet",
            "dotnet-ef",
            "influx",
            "etcdctl",
            "consul",
            "pg_restore",
            "mongorestore",
            "kafka-topics",
            "kafka-topics.sh",
            "rabbitmqctl",
            "rabbitmqadmin",
            "nats",
            "cypher-shell",
        ],
        check: Check::Command(drop_tools),
        refused: &[
            // Every migration rolled back: the tables go with them.
            Example::bash("python manage.py migrate billing zero"),
            Example::bash("pg_restore --clean -d prod backup.dump"),
            Example::bash("mongorestore --drop --uri mongodb://db.example/shop dump/"),
            Example::bash("kafka-topics.sh --bootstrap-server k:9092 --delete --topic orders"),
            Example::bash("rabbitmqctl purge_queue orders"),
            Example::bash("nats stream rm ORDERS -f"),
            Example::bash("cypher-shell -u neo4j 'MATCH (n) DETACH DELETE n'"),
            Example::bash("goose -dir db/migrations postgres \"$DATABASE_URL\" down-to 0"),
            Example::bash("migrate -path db/migrations -database \"$DATABASE_URL\" down -all"),
            Example::bash("atlas schema clean -u \"$DATABASE_URL\" --auto-approve"),
            Example::bash("bin/rails db:migrate VERSION=0"),
            Example::bash("mix ecto.rollback --all"),
            Example::bash("sqitch revert -y db:pg://prod"),
            Example::bash("dropdb app_dev"),
            Example::bash("pg_dropcluster --stop 14 main"),
            Example::bash("rails db:drop"),
            Example::bash("npx prisma migrate reset --force"),
            Example::bash("python manage.py flush --no-input"),
            Example::bash("yarn prisma migrate reset"),
            Example::bash("bundle exec rails db:drop"),
            Example::bash("php artisan migrate:fresh --seed"),
            Example::bash("alembic downgrade base"),
            Example::bash("npx knex migrate:rollback --all"),
            Example::bash("mix ecto.reset"),
            Example::bash("flyway -url=jdbc:x clean"),
            Example::bash("npx sequelize-cli db:migrate:undo:all"),
            Example::bash("dotnet ef database drop -f"),
            Example::bash("influx bucket delete -n prod"),
            Example::bash("etcdctl del \"\" --prefix"),
            Example::bash("consul kv delete -recurse app/"),
            Example::bash(
                "influx delete --bucket b --start 1970-01-01T00:00:00Z --stop 2030-01-01T00:00:00Z",
            ),
        ],
        allowed: &[
            Example::bash("php artisan migrate"),
            Example::bash("alembic downgrade -1"),
            Example::bash("npx knex migrate:rollback"),
            Example::bash("mix ecto.migrate"),
            Example::bash("flyway migrate"),
            Example::bash("supabase db push"),
            Example::bash("rails db:migrate"),
            Example::bash("python manage.py migrate"),
            Example::bash("npx prisma migrate dev"),
            Example::bash("dotnet ef database update"),
            Example::bash("influx bucket list"),
            Example::bash("etcdctl del /app/lock"),
            Example::bash("consul kv delete app/flags/beta"),
            Example::bash("pg_restore -d dev backup.dump"),
            Example::bash("mongorestore --uri mongodb://localhost/dev dump/"),
            Example::bash("kafka-topics.sh --bootstrap-server k:9092 --list"),
            Example::bash("rabbitmqctl list_queues"),
            Example::bash("nats stream info ORDERS"),
            Example::bash("cypher-shell 'MATCH (n:Temp) WHERE n.ttl < 0 DETACH DELETE n'"),
            Example::bash(
                "influx delete --bucket b --start 2024-01-01T00:00:00Z --stop 2024-01-02T00:00:00Z --predicate '_measurement=\"tmp\"'",
            ),
            Example::bash("etcdctl get \"\" --prefix --keys-only"),
            Example::bash("python manage.py migrate billing 0007"),
            Example::bash("goose -dir db/migrations postgres \"$DATABASE_URL\" down"),
            Example::bash("migrate -path db/migrations -database \"$DATABASE_URL\" down 1"),
            Example::bash("atlas schema inspect -u \"$DATABASE_URL\""),
            Example::bash("bin/rails db:migrate VERSION=20240101000000"),
            Example::bash("mix ecto.rollback"),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The shell commands of the SQL a client is given inline, on standard input or piped in
    /// from `echo`, and none from a client without escapes or SQL without them.
    #[test]
    fn shell_escapes_are_read_from_every_text_a_client_is_given() {
        let escapes = |line: &str| {
            let a = crate::shell::analyse(line);
            let c = a.commands.iter().find(|c| c.program != "echo").unwrap();
            shell_escapes(&a, c)
        };
        for line in [
            "psql -c '\\! rm -rf ~'",
            "psql -U app <<< '\\! rm -rf ~'",
            "echo '\\! rm -rf ~' | psql",
            "mysql -e 'system rm -rf ~'",
            "sqlite3 a.db '.shell rm -rf ~'",
            "psql -c \"SELECT 1;\n\\! rm -rf ~\"",
            "psql -c \"COPY (SELECT 1) TO PROGRAM 'rm -rf ~'\"",
        ] {
            assert_eq!(escapes(line), vec!["rm -rf ~"], "{line}");
        }
        for line in [
            "psql -c 'SELECT 1'",
            "psql -c '\\dt'",
            "sqlite3 dev.db .tables",
            "redis-cli -e 'system rm -rf ~'",
            "mysql -e 'SELECT \"system rm\"'",
        ] {
            assert!(escapes(line).is_empty(), "{line}");
        }
    }

    /// The Unicode patterns these replaced, for comparison.
    const UNICODE_DESTRUCTIVE: &str = r"(?is)\b(drop\s+(database|table|schema|index|view|collection|keyspace|user|role|owned\s+by)\b|truncate\s+(table\s+)?\w|delete\s+from\s+[\w.`\x22\[\]]+\s*(;|$|\))|alter\s+table\s+\S+\s+drop\b|flushall|flushdb|dropdatabase\s*\()|\.drop\s*\(\s*\)|\.(deletemany|remove)\s*\(\s*(\{\s*\})?\s*\)";
    const UNICODE_COMMENT: &str = r"(?s)(^|\s)--(\s[^\n]*|$)|/\*.*?\*/";

    const STATEMENTS: &[&str] = &[
        "select count(*) from users",
        "SELECT * FROM orders WHERE id = 3",
        "DROP TABLE users",
        "drop\u{a0}table users",
        "DROP\u{3000}DATABASE prod",
        "truncate naïve_table",
        "TRUNCATE TABLE émile",
        "delete from users;",
        "DELETE FROM naïve\u{a0};",
        "delete from users where id = 1",
        "alter table t\u{a0}drop column c",
        "ALTER TABLE accounts DROP COLUMN pw",
        "db.users.drop()",
        "db.getCollection('u').deleteMany({})",
        "db.x.remove( { } )",
        "FLUSHALL",
        "select 'a' -- note\nfrom t",
        "delete from users --\u{a0}where id = 1",
        "select ' --'; drop table users",
        "/* drop table x */ select 1",
        "update users set admin = true",
        "UPDATE t SET a = 1 WHERE 1=1",
        "update t set a = 1 where id = 4",
        "select dropped_at from events",
        "delete from é where 1=1",
        "update é set x = 1",
        "",
    ];

    #[test]
    fn the_byte_patterns_answer_as_the_unicode_patterns_did() {
        let destructive = regex::Regex::new(UNICODE_DESTRUCTIVE).unwrap();
        let comment = regex::Regex::new(UNICODE_COMMENT).unwrap();
        for s in STATEMENTS {
            let stripped = comment.replace_all(s, " ").into_owned();
            assert_eq!(without_comments(s), stripped, "comments of {s:?}");
            assert_eq!(
                destructive_statement(&stripped),
                destructive
                    .find(&stripped)
                    .map(|m| m.as_str().trim().to_string()),
                "{s:?}"
            );
        }
    }

    #[test]
    fn destructive_statements_are_found_and_reads_are_not() {
        let hit = |s: &str| destructive_statement(&without_comments(s)).is_some();
        assert!(hit("DROP TABLE users"));
        assert!(hit("drop\u{a0}table users"));
        assert!(hit("TRUNCATE TABLE émile"));
        assert!(hit("DELETE FROM naïve\u{a0};"));
        assert!(hit("select ' --'; drop table users"));
        assert!(!hit("select count(*) from users"));
        assert!(!hit("select dropped_at from events"));
        assert!(!hit("/* drop table x */ select 1"));
        // A no-break space after `--` still opens a comment: the `WHERE` behind it is gone.
        assert!(hit("delete from users --\u{a0}where id = 1"));
        assert!(!hit("delete from users where id = 1"));
        assert!(unbounded_update("UPDATE t SET a = 1 WHERE 1=1").is_some());
        assert!(unbounded_update("update t set a = 1 where id = 4").is_none());
        assert!(unbounded_update("select 1").is_none());
        assert!(unbounded_update("delete from é where 1=1").is_some());
        assert!(unbounded_update("delete from é where id = 2").is_none());
    }
}

//! database: dropping, truncating or wiping databases.

use super::{Check, Example, Rule};
use crate::normalize::Scope;
use crate::shell::{Command, ShellAnalysis};
use crate::verdict::Effect::Ask;
use regex::Regex;
use std::sync::LazyLock;

const PACK: &str = "database";

static DESTRUCTIVE_SQL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)\b(drop\s+(database|table|schema|index|view|collection|keyspace|user|role)\b|truncate\s+(table\s+)?\w|delete\s+from\s+[\w.`\x22\[\]]+\s*(;|$|\))|alter\s+table\s+\S+\s+drop\b|flushall|flushdb|dropdatabase\s*\(|\.drop\s*\(\s*\))")
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

fn destructive_sql(a: &ShellAnalysis, _: &Scope) -> Option<String> {
    a.commands
        .iter()
        .filter(|c| SQL_CLIENTS.contains(&c.program.as_str()))
        .find_map(|c| {
            let text = without_comments(&statements(a, c));
            DESTRUCTIVE_SQL
                .find(&text)
                .map(|m| format!("`{}` runs `{}`", c.program, m.as_str().trim()))
        })
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
        id: "destructive-sql",
        pack: PACK,
        effect: Ask,
        reason: "Dropping, truncating or wiping database data needs confirmation",
        programs: &[],
        check: Check::Line(destructive_sql),
        refused: &[
            Example::bash("psql -c 'DROP DATABASE app'"),
            Example::bash("mysql -e \"truncate table users\" app"),
            Example::bash("sqlite3 app.db 'DELETE FROM users;'"),
            Example::bash("echo 'DROP TABLE users;' | psql app"),
            Example::bash("psql app <<'SQL'\nDROP SCHEMA public CASCADE;\nSQL"),
            Example::bash("redis-cli FLUSHALL"),
            Example::bash("docker exec db psql -U postgres -c 'DROP DATABASE app'"),
            Example::bash("psql -c 'DELETE FROM users -- WHERE id=1'"),
            Example::bash("mongosh app --eval 'db.dropDatabase()'"),
        ],
        allowed: &[
            Example::bash("psql -c 'SELECT 1'"),
            Example::bash("sqlite3 app.db '.tables'"),
            Example::bash("mysql -e 'DELETE FROM sessions WHERE expires < NOW()' app"),
            Example::bash("redis-cli GET key"),
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

//! PowerShell: a line written in PowerShell (`$env:X = 'v'; dotnet run`, `Remove-Item -Recurse
//! ~`, `iwr URL | iex`) is read with PowerShell's tokens and rewritten as the Bash line with the
//! same effects (`rm -r -f ~`, `curl URL | sh`), which the Bash analysis then judges: every
//! rule applies to both shells, and valid PowerShell is not reported as unparseable Bash.
//!
//! The rewrite covers the cmdlets and aliases that delete, read, write, download, evaluate or
//! start things; any other cmdlet becomes a command of its own name, lower-cased, with its
//! arguments. Windows paths and Windows-only tools are out of scope (see docs/EVASION.md).

/// Most bytes rewritten; longer PowerShell is analysed as Bash (and fails closed there).
pub(super) const MAX_BYTES: usize = 64 * 1024;

/// A registry key Windows runs the values of at logon (`…\CurrentVersion\Run`, `RunOnce`,
/// `RunServices`).
pub(super) fn run_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase().replace('/', "\\");
    let key = key.trim_end_matches('\\');
    [
        "\\currentversion\\run",
        "\\currentversion\\runonce",
        "\\currentversion\\runservices",
    ]
    .iter()
    .any(|k| key.ends_with(k))
}

/// Verbs of cmdlet names (`Verb-Noun`) that mark a line as PowerShell.
const VERBS: &[&str] = &[
    "get",
    "set",
    "new",
    "remove",
    "invoke",
    "convertfrom",
    "convertto",
    "start",
    "stop",
    "write",
    "out",
    "select",
    "where",
    "foreach",
    "import",
    "export",
    "test",
    "add",
    "copy",
    "move",
    "expand",
    "compress",
    "join",
    "split",
    "resolve",
    "register",
    "format",
    "measure",
    "sort",
    "clear",
    "rename",
    "enable",
    "disable",
    "restart",
    "update",
    "install",
    "uninstall",
    "read",
    "wait",
    "push",
    "pop",
];

/// Aliases that only PowerShell has.
const ALIASES: &[&str] = &[
    "iex", "iwr", "irm", "saps", "gci", "sls", "ni", "gi", "gp", "ri",
];

/// `iex` given options Invoke-Expression does not have (`iex -e CODE`, `iex -S mix`,
/// `iex --sname n`): Elixir's shell, not PowerShell's alias.
fn elixir_iex(stage: &[String]) -> bool {
    stage.get(1).is_some_and(|w| {
        let w = w.to_ascii_lowercase();
        w.starts_with('-') && !"-command".starts_with(w.as_str())
    })
}

/// True when the line reads as PowerShell: `$env:` variables, `Verb-Noun` cmdlets in command
/// position, or .NET type accelerators (`[IO.File]::`).
pub fn looks_like_powershell(line: &str) -> bool {
    if line.len() > MAX_BYTES {
        return false;
    }
    if line.contains("$env:") || line.contains("]::") {
        return true;
    }
    statements(line).iter().any(|st| {
        st.iter().any(|stage| {
            stage.first().is_some_and(|t| {
                let t = t.trim_start_matches(['(', '&', ' ', '$']);
                let t = t.split([' ', ')', '|']).next().unwrap_or(t);
                let alias = t.to_ascii_lowercase();
                cmdlet_verb(t).is_some()
                    || ALIASES.contains(&alias.as_str()) && !(alias == "iex" && elixir_iex(stage))
            })
        })
    })
}

fn cmdlet_verb(word: &str) -> Option<&str> {
    let (verb, noun) = word.split_once('-')?;
    let lower = verb.to_ascii_lowercase();
    (VERBS.contains(&lower.as_str())
        && verb.starts_with(|c: char| c.is_ascii_uppercase())
        && noun.starts_with(|c: char| c.is_ascii_uppercase())
        && noun.chars().all(|c| c.is_ascii_alphanumeric()))
    .then_some(verb)
}

/// Statements (split on `;`, newlines, `&&`, `||`), each a pipeline of stages, each a list of
/// raw tokens. Quotes are kept on tokens; `( … )`, `$( … )`, `{ … }` stay whole.
fn statements(line: &str) -> Vec<Vec<Vec<String>>> {
    let mut out = Vec::new();
    let mut stmt: Vec<Vec<String>> = Vec::new();
    let mut stage: Vec<String> = Vec::new();
    let mut tok = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    let flush = |tok: &mut String, stage: &mut Vec<String>| {
        if !tok.is_empty() {
            stage.push(std::mem::take(tok));
        }
    };
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            tok.push(c);
            if c == '`' && q == '"' {
                tok.extend(chars.next());
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                tok.push(c);
            }
            // `IEX(…)`, `Write-Output(…)`: a command name followed by a group is the command
            // given the group as its argument.
            '(' if depth == 0
                && stage.is_empty()
                && !tok.is_empty()
                && tok
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                flush(&mut tok, &mut stage);
                depth += 1;
                tok.push(c);
            }
            '(' | '{' => {
                depth += 1;
                tok.push(c);
            }
            ')' | '}' => {
                depth = depth.saturating_sub(1);
                tok.push(c);
            }
            _ if depth > 0 => tok.push(c),
            '#' if tok.is_empty() => {
                // A comment runs to the end of the line.
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                flush(&mut tok, &mut stage);
                stmt.push(std::mem::take(&mut stage));
                out.push(std::mem::take(&mut stmt));
            }
            ' ' | '\t' => flush(&mut tok, &mut stage),
            '|' if chars.peek() == Some(&'|') => {
                chars.next();
                flush(&mut tok, &mut stage);
                stmt.push(std::mem::take(&mut stage));
                out.push(std::mem::take(&mut stmt));
            }
            '|' => {
                flush(&mut tok, &mut stage);
                stmt.push(std::mem::take(&mut stage));
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                flush(&mut tok, &mut stage);
                stmt.push(std::mem::take(&mut stage));
                out.push(std::mem::take(&mut stmt));
            }
            ';' | '\n' | '\r' => {
                flush(&mut tok, &mut stage);
                stmt.push(std::mem::take(&mut stage));
                out.push(std::mem::take(&mut stmt));
            }
            c => tok.push(c),
        }
    }
    flush(&mut tok, &mut stage);
    stmt.push(stage);
    out.push(stmt);
    out.into_iter()
        .map(|s| {
            s.into_iter()
                .filter(|st| !st.is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|s: &Vec<Vec<String>>| !s.is_empty())
        .collect()
}

/// A PowerShell token as a Bash word: quotes become single quotes, `$env:X` becomes `$X`,
/// a parenthesised pipeline becomes a command substitution.
fn word(token: &str, depth: usize) -> String {
    if let Some(group) = token.strip_prefix("$(").or_else(|| token.strip_prefix('(')) {
        // `(…)` alone is its pipeline's output; `(…).DownloadString('u')`, `(…).Prop`, a
        // member of it, is what the stage made of the whole token computes.
        return match closing_paren(group) {
            Some(end) if end + 1 == group.len() => {
                format!("$({})", rewrite_at(&group[..end], depth + 1))
            }
            Some(_) => format!("$({})", stage(&[token.to_string()], false, depth + 1)),
            None => format!("$({})", rewrite_at(group, depth + 1)),
        };
    }
    if let Some(body) = token.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        return sh_quote(&body.replace("''", "'"));
    }
    if let Some(body) = token.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        // Expandable string: variables stay variables, the well-known folders are paths.
        let body = known_folders(body).replace("$env:", "$").replace('`', "\\");
        return format!("\"{}\"", body.replace('"', "\\\""));
    }
    if token.starts_with('{') {
        return format!(
            "$({})",
            rewrite_at(token.trim_matches(['{', '}']), depth + 1)
        );
    }
    let token = known_folders(token).replace("$env:", "$");
    if token.contains('\\') {
        // A bare Windows path (`~\.ssh\id_rsa`, `$HOME\x`): PowerShell escapes with a
        // backtick, so its backslashes are separators, not Bash escapes.
        return format!("\"{}\"", token.replace('\\', "/").replace('"', "\\\""));
    }
    token
}

/// The index in `s` of the `)` closing a group opened just before it, quotes skipped.
fn closing_paren(s: &str) -> Option<usize> {
    let mut depth = 1usize;
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The user's well-known folders as the paths they are (`$PROFILE` is the profile script
/// every PowerShell session runs, `$env:APPDATA` the roaming folder holding the Startup
/// folder), so what is written there is judged as written there and not as an unknown path.
fn known_folders(text: &str) -> String {
    static VARS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\$(?:env:(userprofile|appdata|localappdata|home)\b|(profile)(?:\.(?:CurrentUserCurrentHost|CurrentUserAllHosts))?\b)",
        )
        .expect("static regex")
    });
    VARS.replace_all(text, |c: &regex::Captures| {
        match c.get(1).map(|m| m.as_str().to_ascii_lowercase()).as_deref() {
            Some("appdata") => "~/AppData/Roaming".to_string(),
            Some("localappdata") => "~/AppData/Local".to_string(),
            Some(_) => "~".to_string(),
            None => "~/Documents/PowerShell/Microsoft.PowerShell_profile.ps1".to_string(),
        }
    })
    .into_owned()
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A named parameter (`-Recurse`, `-r`, `-Path:x`): PowerShell accepts any unique prefix.
fn is_param(token: &str, name: &str) -> bool {
    let Some(t) = token.strip_prefix('-') else {
        return false;
    };
    let t = t.split(':').next().unwrap_or(t).to_ascii_lowercase();
    !t.is_empty() && name.starts_with(&t)
}

/// The value of `-Name value` / `-Name:value`.
fn param_value<'a>(tokens: &'a [String], names: &[&str]) -> Option<&'a str> {
    tokens.iter().enumerate().find_map(|(i, t)| {
        let hit = names.iter().any(|n| is_param(t, n) && t.len() > 2);
        if !hit {
            return None;
        }
        match t.split_once(':') {
            Some((_, v)) if !v.is_empty() => Some(v),
            _ => tokens.get(i + 1).map(String::as_str),
        }
    })
}

/// Positional arguments: tokens that are not parameters nor the value of one of `valued`.
fn positionals<'a>(tokens: &'a [String], valued: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if t.starts_with('-') && t.len() > 1 && !t[1..].starts_with(|c: char| c.is_ascii_digit()) {
            let takes = valued.iter().any(|n| is_param(t, n)) && !t.contains(':');
            i += if takes { 2 } else { 1 };
            continue;
        }
        out.push(t.as_str());
        i += 1;
    }
    out
}

/// One pipeline stage as Bash.
fn stage(tokens: &[String], piped: bool, depth: usize) -> String {
    let Some(first) = tokens.first() else {
        return String::new();
    };
    let rest = &tokens[1..];
    let w = |t: &str| word(t, depth);
    // `$env:X = 'v'`, `$x = …`: an assignment; its right side runs.
    if first.starts_with('$') && rest.first().is_some_and(|t| t == "=") {
        let name = first.trim_start_matches("$env:").trim_start_matches('$');
        let value: Vec<String> = rest[1..].iter().map(|t| w(t)).collect();
        let safe: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let safe = if safe.is_empty() || safe.starts_with(|c: char| c.is_ascii_digit()) {
            "_ps".to_string()
        } else {
            safe
        };
        return format!("{safe}={}", value.join(""));
    }
    // `$env:TOKEN`, `$PSVersionTable.PSVersion`: an expression, nothing runs; at the start of
    // a statement its value is printed.
    if first.starts_with('$') && !first.starts_with("$(") {
        return if piped {
            "true".to_string()
        } else {
            format!("echo {}", w(first))
        };
    }
    // `(…).Prop`, `(New-Object Net.WebClient).DownloadString('u')`: the group runs.
    if first.starts_with('(') || first.starts_with("$(") {
        let group_end = first.rfind(')').unwrap_or(first.len());
        let member = &first[group_end..];
        let inner = &first[first.find('(').map_or(0, |i| i + 1)..group_end];
        if let Some(url) = download_call(first) {
            return format!("curl {}", sh_quote(&url));
        }
        let _ = member;
        return rewrite_at(inner, depth + 1);
    }
    if first.starts_with('[') {
        // `[IO.File]::WriteAllText(…)`: a .NET call; downloads are the effect we can name, and
        // `[Environment]::GetEnvironmentVariables()`, which is `env`.
        let lower = first.to_ascii_lowercase();
        if lower.contains("::getenvironmentvariables(") {
            return "env".to_string();
        }
        // `[Environment]::GetEnvironmentVariable('NAME')` is `$env:NAME`, printed.
        if let Some(at) = lower.find("::getenvironmentvariable(") {
            let arg = &first[at + "::getenvironmentvariable(".len()..];
            let name: String = arg
                .trim_start_matches(['\'', '"', ' '])
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) {
                return format!("echo \"${name}\"");
            }
        }
        if let Some(cmd) = dotnet_file_call(first, depth) {
            return cmd;
        }
        return match download_call(first) {
            Some(url) => format!("curl {}", sh_quote(&url)),
            None => "dotnet-call".to_string(),
        };
    }
    let (program, tokens) = if first == "&" || first == "." {
        match rest.split_first() {
            Some((p, r)) => (p.as_str(), r),
            None => return String::new(),
        }
    } else {
        (first.as_str(), rest)
    };
    let name = program.trim_matches(['\'', '"']).to_ascii_lowercase();
    let args = |valued: &[&str]| -> Vec<String> {
        positionals(tokens, valued).into_iter().map(w).collect()
    };
    let joined = |v: Vec<String>| v.join(" ");
    match name.as_str() {
        "remove-item" | "rm" | "del" | "erase" | "rd" | "ri" | "rmdir" => {
            let mut cmd = vec!["rm".to_string()];
            if tokens.iter().any(|t| is_param(t, "recurse")) {
                cmd.push("-r".into());
            }
            if tokens.iter().any(|t| is_param(t, "force")) {
                cmd.push("-f".into());
            }
            if let Some(p) = param_value(tokens, &["path", "literalpath"]) {
                cmd.push(w(p));
            }
            cmd.extend(args(&[
                "path",
                "literalpath",
                "filter",
                "include",
                "exclude",
            ]));
            // No path: it removes what the pipeline hands it (`gci ~ | Remove-Item`).
            if cmd.iter().skip(1).all(|a| a.starts_with('-')) {
                cmd.insert(0, "xargs".into());
            }
            joined(cmd)
        }
        // What it lists, as `find` lists it: a `Remove-Item` it feeds deletes those entries.
        // `Get-Item env:*` is the environment too; any other item is itself, not a listing.
        "get-item" | "gi" => {
            if tokens.iter().any(|t| env_drive(t)) {
                return "env".to_string();
            }
            let mut cmd = vec![name.clone()];
            cmd.extend(tokens.iter().map(|t| w(t)));
            joined(cmd)
        }
        "get-childitem" | "gci" | "dir" | "ls" => {
            let mut paths: Vec<String> = param_value(tokens, &["path", "literalpath"])
                .map(w)
                .into_iter()
                .collect();
            // The `env:` drive is the environment: listing it is `env`.
            if paths
                .iter()
                .chain(&args(&["path", "literalpath"]))
                .any(|p| env_drive(p))
            {
                return "env".to_string();
            }
            paths.extend(args(&[
                "path",
                "literalpath",
                "filter",
                "include",
                "exclude",
                "depth",
                "attributes",
            ]));
            if paths.is_empty() {
                paths.push(".".into());
            }
            let mut cmd = vec!["find".to_string()];
            cmd.extend(paths);
            cmd.push("-mindepth 1".into());
            if !tokens.iter().any(|t| is_param(t, "recurse")) {
                cmd.push("-maxdepth 1".into());
            }
            if let Some(f) = param_value(tokens, &["filter", "include"]) {
                cmd.push(format!("-name {}", w(f)));
            }
            joined(cmd)
        }
        "get-content" | "gc" | "cat" | "type" => {
            let mut cmd = vec!["cat".to_string()];
            if let Some(p) = param_value(tokens, &["path", "literalpath"]) {
                cmd.push(w(p));
            }
            cmd.extend(args(&[
                "path",
                "literalpath",
                "totalcount",
                "tail",
                "encoding",
            ]));
            // No path: it reads the files the pipeline hands it (`gci -Recurse ~ | gc`).
            if piped && cmd.len() == 1 {
                cmd.insert(0, "xargs".into());
            }
            joined(cmd)
        }
        // A value under a Run key starts its program at every logon: written as the file in
        // the Startup folder that does the same.
        "new-itemproperty" | "set-itemproperty" | "sp" | "reg" | "reg.exe"
            if !name.starts_with("reg")
                || tokens
                    .first()
                    .is_some_and(|t| t.eq_ignore_ascii_case("add")) =>
        {
            // `reg add KEY /v NAME /d VALUE`: the key follows `add`.
            let reg_key = name
                .starts_with("reg")
                .then(|| tokens.get(1).map(|k| k.to_string()))
                .flatten();
            let path = reg_key
                .or_else(|| param_value(tokens, &["path", "literalpath"]).map(|p| p.to_string()))
                .or_else(|| {
                    positionals(tokens, &["path", "name", "value", "propertytype", "type"])
                        .first()
                        .map(|p| p.to_string())
                })
                .unwrap_or_default()
                .trim_matches(['\'', '"'])
                .to_ascii_lowercase()
                .replace('/', "\\");
            if run_key(&path) {
                let name = param_value(tokens, &["name"])
                    .or_else(|| {
                        let at = tokens.iter().position(|t| t.eq_ignore_ascii_case("/v"))?;
                        tokens.get(at + 1).map(String::as_str)
                    })
                    .map(w)
                    .unwrap_or_else(|| "entry".into());
                format!(
                    "tee '~/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/'{} >/dev/null",
                    name
                )
            } else {
                let mut cmd = vec![name.clone()];
                cmd.extend(tokens.iter().map(|t| w(t)));
                joined(cmd)
            }
        }
        "set-content" | "sc" | "out-file" | "add-content" | "ac" | "tee-object" => {
            let append = matches!(name.as_str(), "add-content" | "ac")
                || tokens.iter().any(|t| is_param(t, "append"));
            let path = param_value(tokens, &["path", "literalpath", "filepath"])
                .map(w)
                .or_else(|| args(&["value", "encoding"]).into_iter().next())
                .unwrap_or_default();
            format!("tee {}{path} >/dev/null", if append { "-a " } else { "" })
        }
        "copy-item" | "cp" | "copy" | "cpi" | "move-item" | "mv" | "move" | "mi" => {
            let verb = if name.starts_with('m') { "mv" } else { "cp -r" };
            let mut cmd = vec![verb.to_string()];
            if let Some(p) = param_value(tokens, &["path", "literalpath"]) {
                cmd.push(w(p));
            }
            cmd.extend(args(&["path", "literalpath", "destination"]));
            if let Some(d) = param_value(tokens, &["destination"]) {
                cmd.push(w(d));
            }
            joined(cmd)
        }
        "invoke-webrequest" | "iwr" | "wget" | "curl" | "invoke-restmethod" | "irm" => {
            let mut cmd = vec!["curl".to_string()];
            if let Some(u) = param_value(tokens, &["uri"]) {
                cmd.push(w(u));
            }
            if let Some(f) = param_value(tokens, &["outfile"]) {
                cmd.push(format!("-o {}", w(f)));
            }
            if let Some(f) = param_value(tokens, &["infile"]) {
                cmd.push(format!("-T {}", w(f)));
            }
            if let Some(m) = param_value(tokens, &["method"]) {
                cmd.push(format!("-X {}", w(m)));
            }
            if let Some(b) = param_value(tokens, &["body"]) {
                cmd.push(format!("-d {}", w(b)));
            } else if piped && param_value(tokens, &["infile"]).is_none() {
                // `-Body` takes the pipeline's input: `… | Invoke-RestMethod -Method Post`.
                cmd.push("--data-binary @-".to_string());
            }
            cmd.extend(args(&[
                "uri",
                "outfile",
                "infile",
                "method",
                "body",
                "headers",
                "usebasicparsing",
            ]));
            joined(cmd)
        }
        "stop-computer" => "shutdown -h now".to_string(),
        "restart-computer" => "reboot".to_string(),
        // `Compress-Archive -Path SRC -DestinationPath ZIP`: SRC read whole into ZIP.
        "compress-archive" => {
            let mut pos = args(&["path", "literalpath", "destinationpath", "compressionlevel"]);
            let src = param_value(tokens, &["path", "literalpath"])
                .map(w)
                .or_else(|| (!pos.is_empty()).then(|| pos.remove(0)));
            let dst = param_value(tokens, &["destinationpath"])
                .map(w)
                .or_else(|| pos.first().cloned());
            match (src, dst) {
                (Some(s), Some(d)) => format!("zip -r {d} {s}"),
                _ => "compress-archive".to_string(),
            }
        }
        "invoke-expression" | "iex" => {
            if piped {
                return "sh".to_string();
            }
            // A literal string is PowerShell code, read as PowerShell; anything else is
            // code known only when it runs.
            let code = param_value(tokens, &["command"])
                .or_else(|| positionals(tokens, &["command"]).first().copied());
            let literal = code.and_then(|c| {
                c.strip_prefix('\'')
                    .and_then(|b| b.strip_suffix('\''))
                    .map(|b| b.replace("''", "'"))
                    .or_else(|| {
                        c.strip_prefix('"')
                            .and_then(|b| b.strip_suffix('"'))
                            .filter(|b| !b.contains(['$', '`']))
                            .map(str::to_string)
                    })
            });
            match literal {
                Some(code) => rewrite_at(&code, depth + 1),
                None => format!("eval {}", joined(args(&["command"]))),
            }
        }
        "start-process" | "saps" | "start" => {
            let target = param_value(tokens, &["filepath"])
                .map(w)
                .or_else(|| {
                    args(&[
                        "filepath",
                        "argumentlist",
                        "verb",
                        "workingdirectory",
                        "windowstyle",
                    ])
                    .into_iter()
                    .next()
                })
                .unwrap_or_default();
            let more = param_value(tokens, &["argumentlist"])
                .map(|a| w(a).trim_matches(['\'', '"']).replace(',', " "))
                .unwrap_or_default();
            let elevated =
                param_value(tokens, &["verb"]).is_some_and(|v| v.eq_ignore_ascii_case("runas"));
            format!("{}{target} {more}", if elevated { "sudo " } else { "" })
        }
        "write-output" | "write" | "echo" | "write-host" => joined(
            std::iter::once("echo".to_string())
                .chain(args(&[]))
                .collect(),
        ),
        "pwsh" | "powershell" | "powershell.exe" | "pwsh.exe" => {
            // Nested PowerShell: its code is rewritten too.
            match param_value(tokens, &["command"]) {
                Some(code) => rewrite_at(code.trim_matches(['\'', '"']), depth + 1),
                None => format!("{name} {}", joined(tokens.iter().map(|t| w(t)).collect())),
            }
        }
        _ => {
            let mut cmd = vec![if cmdlet_verb(program).is_some() {
                name.clone()
            } else {
                w(program)
            }];
            cmd.extend(tokens.iter().map(|t| w(t)));
            joined(cmd)
        }
    }
}

/// A .NET file call (`[IO.File]::ReadAllText(p)`, `[System.IO.File]::Delete(p)`,
/// `[IO.Directory]::Delete(p, $true)`, `[IO.File]::Copy(a, b)`) as the command with its
/// effect: `cat`, `rm`, `rm -r`, `cp`, `mv`, a write or `mkdir`. `None` for any other call.
fn dotnet_file_call(token: &str, depth: usize) -> Option<String> {
    let close = token.find("]::")?;
    let class = token[1..close].to_ascii_lowercase();
    let class = class.strip_prefix("system.").unwrap_or(&class);
    let rest = &token[close + 3..];
    let open = rest.find('(')?;
    let method = rest[..open].trim().to_ascii_lowercase();
    let inner = &rest[open + 1..rest.rfind(')')?];
    // Arguments split at the commas outside quotes and parentheses.
    let mut args: Vec<String> = Vec::new();
    let (mut level, mut quote, mut start) = (0usize, None::<char>, 0usize);
    for (i, ch) in inner.char_indices() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(ch),
            (None, '(') => level += 1,
            (None, ')') => level = level.saturating_sub(1),
            (None, ',') if level == 0 => {
                args.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim().to_string());
    let arg = |i: usize| {
        args.get(i)
            .filter(|a| !a.is_empty())
            .map(|a| word(a, depth))
    };
    let first = arg(0)?;
    Some(match (class, method.as_str()) {
        (
            "io.file",
            "readalltext" | "readallbytes" | "readalllines" | "readlines" | "openread" | "opentext"
            | "readalltextasync" | "readallbytesasync",
        ) => format!("cat {first}"),
        (
            "io.file",
            "writealltext" | "writeallbytes" | "writealllines" | "create" | "openwrite"
            | "createtext" | "writealltextasync",
        ) => format!("cat /dev/null > {first}"),
        ("io.file", "appendalltext" | "appendalllines" | "appendtext") => {
            format!("cat /dev/null >> {first}")
        }
        ("io.file", "delete") => format!("rm -f {first}"),
        ("io.file", "copy") => format!("cp {first} {}", arg(1)?),
        ("io.file" | "io.directory", "move") => format!("mv {first} {}", arg(1)?),
        ("io.directory", "delete") => {
            let recursive = args.get(1).is_some_and(|a| a.eq_ignore_ascii_case("$true"));
            format!("rm {}{first}", if recursive { "-r " } else { "" })
        }
        ("io.directory", "createdirectory") => format!("mkdir -p {first}"),
        _ => return None,
    })
}

/// The whole `env:` drive as a path (`env:`, `Env:\`, `env:*`): every environment variable.
fn env_drive(token: &str) -> bool {
    let t = token.trim_matches(['\'', '"']).to_ascii_lowercase();
    matches!(
        t.as_str(),
        "env:" | "env:\\" | "env:/" | "env:*" | "env:\\*"
    )
}

/// The URL of a `.DownloadString('u')`/`.DownloadFile('u', …)` call in a token.
fn download_call(token: &str) -> Option<String> {
    let lower = token.to_ascii_lowercase();
    let at = lower
        .find(".downloadstring(")
        .or_else(|| lower.find(".downloadfile("))
        .or_else(|| lower.find(".downloaddata("))?;
    let after = &token[at..];
    let open = after.find('(')? + 1;
    let inner = &after[open..];
    let url: String = inner
        .trim_start_matches(['\'', '"'])
        .chars()
        .take_while(|c| !matches!(c, '\'' | '"' | ')' | ','))
        .collect();
    Some(url)
}

/// A program word that only PowerShell runs: a cmdlet, a variable, a group, a .NET call.
pub fn powershell_only(program: &str) -> bool {
    program.starts_with(['$', '(', '[', '&', '{'])
        || program.contains("::")
        || cmdlet_verb(program).is_some()
}

/// `$c = 'Remove-Item'` then `& $c …`: the call operator runs the command the variable names
/// (PowerShell's variables are case-insensitive); the name replaces the variable, so the
/// stage is read as that command. A value not known as a literal is left to the analysis.
fn called_by_name(statements: &mut [Vec<Vec<String>>]) {
    let mut bound: Vec<(String, String)> = Vec::new();
    for tokens in statements.iter_mut().flatten() {
        if tokens.len() >= 2 && matches!(tokens[0].as_str(), "&" | ".") {
            let var = tokens[1].trim_matches('"').to_ascii_lowercase();
            if let Some((_, value)) = bound.iter().rev().find(|(n, _)| *n == var) {
                tokens[1] = value.clone();
            }
        }
        if tokens.len() >= 2 && tokens[0].starts_with('$') && tokens[1] == "=" {
            let name = tokens[0].to_ascii_lowercase();
            bound.retain(|(n, _)| *n != name);
            let literal = match tokens.get(2..) {
                Some([v]) if v.starts_with('\'') && v.ends_with('\'') && v.len() >= 2 => {
                    Some(v[1..v.len() - 1].to_string())
                }
                Some([v])
                    if v.starts_with('"')
                        && v.ends_with('"')
                        && v.len() >= 2
                        && !v.contains('$') =>
                {
                    Some(v[1..v.len() - 1].to_string())
                }
                _ => None,
            };
            if let Some(value) = literal {
                bound.push((name, value));
            }
        }
    }
}

/// The Bash line with the same effects as the PowerShell `line`.
pub fn rewrite(line: &str) -> String {
    rewrite_at(line, 0)
}

fn rewrite_at(line: &str, depth: usize) -> String {
    if depth > 16 {
        // Deeper than any real command: leave a marker the analysis cannot resolve.
        return "$__palisade_deep_powershell".to_string();
    }
    let mut statements = statements(line);
    called_by_name(&mut statements);
    statements
        .iter()
        .map(|st| {
            st.iter()
                .enumerate()
                .map(|(i, tokens)| stage(tokens, i > 0, depth))
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

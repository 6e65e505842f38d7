//! How interpreters read their command lines: which options take a value, which take the code,
//! whether short options group (`perl -lne CODE`, `python3 -Ic CODE`, `bash -xc CODE`), and
//! so where the program they run comes from. Part of the vocabulary of programs (re-exported
//! by `crate::vocab`, which adds each language), kept here so the unwrapper reads the same
//! grammar without `shell` and `vocab` importing each other.

/// The grammar of an interpreter's options, as its own option parser reads them.
#[derive(Debug, Clone, Copy)]
pub struct Switches {
    /// The language it runs, by its vocabulary name (`shell`, `python`, `node`, `r`…).
    pub language: &'static str,
    /// Short options may be grouped in one word; otherwise each word is one option.
    pub grouped: bool,
    /// Options may start with `+` too (a shell's `+o pipefail`), and a lone `-` ends them as
    /// `--` does (`bash - x.sh`) instead of naming standard input.
    pub shell_options: bool,
    /// Short options whose value is code: the rest of the word, or the next word.
    pub code: &'static str,
    /// The code is the first operand, not the option's value (`bash -xc CODE`).
    pub code_is_operand: bool,
    /// The code option ends the options: what follows is the program's (`python3 -c CODE
    /// -c`); otherwise each code option adds code (`perl -e A -e B`).
    pub code_ends_options: bool,
    /// Whole words whose value is code: the next word, or after `=` (`--eval=CODE`, `-pe`).
    pub long_code: &'static [&'static str],
    /// Short options with a value: the rest of the word, or the next word (`-W ignore`).
    pub value: &'static str,
    /// Short options whose value is only the rest of the word, maybe empty (`perl -i.bak`).
    pub attached: &'static str,
    /// Short options followed by digits only (`perl -l0`, `ruby -0777`).
    pub digits: &'static str,
    /// Long options followed by a value word unless written `--opt=value` (whole words,
    /// Erlang-style `-pa` too).
    pub long_value: &'static [&'static str],
    /// Short options whose value is the script file (`php -f x.php`).
    pub script: &'static str,
    /// Short options that read the program from standard input (`bash -s`).
    pub stdin: &'static str,
    /// Short options after which the program is neither a file nor code (`python3 -m mod`).
    pub module: &'static str,
    /// A subcommand whose first operand is code (`deno eval CODE`); other subcommands name
    /// no script here (`deno run` is the runners' business).
    pub eval_subcommand: Option<&'static str>,
    /// A subcommand that runs code as the options say (`mix run -e CODE`); a first word naming
    /// another subcommand runs nothing named here (`mix test`), an option starts the options.
    pub run_subcommand: Option<&'static str>,
    /// Whole words whose value is the script file run (`kotlinc -script x.kts`); with any,
    /// the other operands are compiled, not run (`kotlinc Main.kt -d app.jar`).
    pub script_words: &'static [&'static str],
}

const NONE: Switches = Switches {
    language: "",
    grouped: false,
    shell_options: false,
    code: "",
    code_is_operand: false,
    code_ends_options: false,
    long_code: &[],
    value: "",
    attached: "",
    digits: "",
    long_value: &[],
    script: "",
    stdin: "",
    module: "",
    eval_subcommand: None,
    run_subcommand: None,
    script_words: &[],
};

const SHELL: Switches = Switches {
    language: "shell",
    grouped: true,
    shell_options: true,
    code: "c",
    code_is_operand: true,
    code_ends_options: true,
    long_code: &["--command"],
    value: "oO",
    long_value: &["--rcfile", "--init-file"],
    stdin: "s",
    ..NONE
};

const PYTHON: Switches = Switches {
    language: "python",
    grouped: true,
    code: "c",
    code_ends_options: true,
    value: "WX",
    long_value: &["--check-hash-based-pycs"],
    module: "m",
    ..NONE
};

const NODE: Switches = Switches {
    language: "node",
    code: "ep",
    long_code: &["--eval", "--print", "-pe"],
    value: "rC",
    long_value: &[
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--env-file",
        "--conditions",
        "--input-type",
    ],
    ..NONE
};

const RUBY: Switches = Switches {
    language: "ruby",
    grouped: true,
    code: "e",
    value: "CEIr",
    attached: "FiKTWx",
    digits: "0",
    long_value: &["--encoding"],
    ..NONE
};

/// The program name without a version suffix: `python3.12` → `python`, `lua5.4` → `lua`.
pub fn family(program: &str) -> &str {
    program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
}

/// The option grammar of an interpreter, by program name (`python3.12`, `perl`, `bash`…).
pub fn switches(program: &str) -> Option<Switches> {
    named(program).or_else(|| {
        let f = family(program);
        (f != program).then(|| named(f)).flatten()
    })
}

fn named(p: &str) -> Option<Switches> {
    Some(match p {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "busybox" | "fish"
        | "csh" | "tcsh" => SHELL,
        _ if p.starts_with("python") || p.starts_with("pypy") => PYTHON,
        // IPython runs Python with the same `-c CODE`.
        "ipython" | "ipython3" => PYTHON,
        // zx runs a script (or `--eval` code) with its `$` shell templates.
        "node" | "nodejs" | "bun" | "tsx" | "ts-node" | "zx" => NODE,
        "deno" => Switches {
            eval_subcommand: Some("eval"),
            ..NODE
        },
        "ruby" | "jruby" | "truffleruby" | "irb" => RUBY,
        "perl" => Switches {
            language: "perl",
            grouped: true,
            code: "eE",
            value: "IMm",
            attached: "CdDFixV",
            digits: "l0",
            ..NONE
        },
        "php" => Switches {
            language: "php",
            code: "rBRE",
            value: "cdzStF",
            script: "f",
            ..NONE
        },
        "lua" | "luajit" => Switches {
            language: "lua",
            code: "e",
            value: "l",
            ..NONE
        },
        // `elixir -e CODE`, `iex -e CODE`; `-S mix` runs a script found on the path.
        "elixir" | "iex" => Switches {
            language: "elixir",
            code: "e",
            long_code: &["--eval"],
            value: "r",
            long_value: &[
                "-pa",
                "-pz",
                "-pr",
                "--app",
                "--cookie",
                "--sname",
                "--name",
                "--erl",
                "--boot",
                "--vm-args",
                "--logger-otp-reports",
                "--logger-sasl-reports",
            ],
            module: "S",
            ..NONE
        },
        // `mix run -e CODE` evaluates Elixir after the project's code is loaded; `-r` requires a
        // file, `-p` is a flag.
        "mix" => Switches {
            language: "elixir",
            code: "e",
            long_code: &["--eval"],
            value: "r",
            long_value: &["--require", "--config"],
            run_subcommand: Some("run"),
            ..NONE
        },
        // Groovy's `-e CODE`, groovysh's `-e`/`--evaluate`; `-cp`, `-D name=value`, `-c
        // charset`, `-b class` take values; with no script, the code comes on standard input.
        "groovy" | "groovysh" => Switches {
            language: "groovy",
            code: "e",
            long_code: &["--evaluate"],
            value: "cDbl",
            long_value: &[
                "-cp",
                "-classpath",
                "--classpath",
                "--configscript",
                "--basescript",
                "--encoding",
                "--define",
            ],
            ..NONE
        },
        // jshell runs its script operands (`-` is standard input, as is no operand); `-R`,
        // `-J` and `-C` carry a flag glued on.
        "jshell" => Switches {
            language: "java",
            attached: "RJC",
            long_value: &[
                "--class-path",
                "--module-path",
                "--add-modules",
                "--add-exports",
                "--startup",
                "--feedback",
                "--execution",
            ],
            ..NONE
        },
        // The Scala runner and scala-cli: `-e CODE` (`--execute-script`, `--execute-scala`…);
        // `scala-cli run -e CODE`, other subcommands (`compile`, `test`, `fmt`) run no code
        // named here.
        "scala" | "scala-cli" | "scala3" => Switches {
            language: "scala",
            code: "e",
            long_code: &[
                "--execute-script",
                "--script-snippet",
                "--execute-scala",
                "--scala-snippet",
            ],
            value: "iSO",
            attached: "JD",
            long_value: &[
                "-cp",
                "-classpath",
                "--classpath",
                "--scala-version",
                "--scala",
                "--server",
                "--dependency",
                "--dep",
                "--jvm",
                "--main-class",
                "--java-opt",
                "--scalac-option",
                "--repository",
                "-howtorun",
            ],
            run_subcommand: Some("run"),
            ..NONE
        },
        // `kotlinc -e CODE` / `-expression CODE` and `-script x.kts` run code; other operands are
        // compiled (`kotlinc Main.kt -include-runtime -d app.jar`). Options are whole words.
        "kotlinc" | "kotlinc-jvm" | "kotlin" => Switches {
            language: "kotlin",
            long_code: &["-e", "-expression"],
            long_value: &[
                "-d",
                "-cp",
                "-classpath",
                "-jvm-target",
                "-language-version",
                "-api-version",
                "-kotlin-home",
                "-module-name",
                "-jdk-home",
                "-opt-in",
                "-P",
                "-howtorun",
            ],
            script_words: if p.starts_with("kotlinc") {
                &["-script"]
            } else {
                &[]
            },
            ..NONE
        },
        "Rscript" | "R" => Switches {
            language: "r",
            code: "e",
            script: "f",
            ..NONE
        },
        "julia" => Switches {
            language: "julia",
            grouped: true,
            code: "eE",
            long_code: &["--eval", "--print"],
            value: "HLJCtp",
            attached: "Og",
            long_value: &[
                "--threads",
                "--procs",
                "--sysimage",
                "--load",
                "--machine-file",
            ],
            module: "m",
            ..NONE
        },
        "osascript" => Switches {
            language: "applescript",
            code: "e",
            value: "ls",
            ..NONE
        },
        "tclsh" | "wish" => Switches {
            language: "tcl",
            ..NONE
        },
        _ => return None,
    })
}

/// Where an interpreter's command line says its program comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Code in argument `index`, from byte `offset` on (after a `-c` or `--eval=` glued to it).
    Code { index: usize, offset: usize },
    /// A code option with no code after it (`sh -c` fed by `xargs`).
    MissingCode,
    /// A script file operand.
    File(usize),
    /// Neither code nor a file on the line: a module (`python3 -m x`).
    Module,
    /// Standard input (no operand, `-`, `-s`); the program's own arguments start at `from`.
    Stdin { from: usize },
}

/// Where PowerShell (`pwsh`, `powershell`) takes its code from in `args`: its options are
/// single-dash long ones, case-insensitive, by any unambiguous prefix.
pub fn pwsh_source(args: &[&str]) -> Source {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.to_ascii_lowercase();
        let Some(name) = t.strip_prefix('-').filter(|n| !n.is_empty()) else {
            break;
        };
        let next_is_stdin = args.get(i + 1).is_some_and(|n| *n == "-");
        if "command".starts_with(name) || name == "commandwithargs" || name == "cwa" {
            return match (next_is_stdin, args.get(i + 1)) {
                (true, _) => Source::Stdin { from: i + 2 },
                (false, Some(_)) => Source::Code {
                    index: i + 1,
                    offset: 0,
                },
                (false, None) => Source::MissingCode,
            };
        }
        if name.starts_with("e") && "encodedcommand".starts_with(name.trim_end_matches('c'))
            || name == "ec"
        {
            return match args.get(i + 1) {
                Some(_) => Source::Code {
                    index: i + 1,
                    offset: 0,
                },
                None => Source::MissingCode,
            };
        }
        if "file".starts_with(name) {
            return if next_is_stdin {
                Source::Stdin { from: i + 2 }
            } else if i + 1 < args.len() {
                Source::File(i + 1)
            } else {
                Source::MissingCode
            };
        }
        let takes_value = [
            "executionpolicy",
            "ep",
            "ex",
            "workingdirectory",
            "wd",
            "inputformat",
            "inp",
            "if",
            "outputformat",
            "of",
            "o",
            "configurationname",
            "config",
            "windowstyle",
            "w",
            "settingsfile",
            "custompipename",
            "version",
            "v",
        ];
        i += if takes_value.contains(&name) { 2 } else { 1 };
    }
    if i < args.len() {
        Source::File(i)
    } else {
        Source::Stdin { from: i }
    }
}

impl Switches {
    /// Where the program comes from in `args`, read as the interpreter reads its options.
    pub fn source(&self, args: &[&str]) -> Source {
        if let Some(sub) = self.eval_subcommand {
            let Some((_, rest)) = args.split_first().filter(|(f, _)| **f == sub) else {
                return Source::Module;
            };
            let plain = Switches {
                eval_subcommand: None,
                ..*self
            };
            return match plain.source(rest) {
                Source::File(i) => Source::Code {
                    index: i + 1,
                    offset: 0,
                },
                Source::Code { index, offset } => Source::Code {
                    index: index + 1,
                    offset,
                },
                _ => Source::Module,
            };
        }
        if let Some(sub) = self.run_subcommand {
            let plain = Switches {
                run_subcommand: None,
                ..*self
            };
            return match args.first() {
                Some(first) if *first == sub => match plain.source(&args[1..]) {
                    Source::Code { index, offset } => Source::Code {
                        index: index + 1,
                        offset,
                    },
                    Source::File(i) => Source::File(i + 1),
                    Source::Stdin { from } => Source::Stdin { from: from + 1 },
                    other => other,
                },
                Some(first) if first.starts_with('-') => plain.source(args),
                _ => Source::Module,
            };
        }
        let mut i = 0;
        let (mut code_operand, mut stdin) = (false, false);
        let at = |i: usize| args.get(i).copied();
        // The code in the word after an option, or none.
        let next_code = |i: usize| match at(i + 1) {
            Some(_) => Source::Code {
                index: i + 1,
                offset: 0,
            },
            None => Source::MissingCode,
        };
        while let Some(t) = at(i) {
            if t == "-" && !self.shell_options {
                return Source::Stdin { from: i + 1 };
            }
            if t == "--" || t == "-" {
                i += 1;
                break;
            }
            let option =
                t.len() > 1 && (t.starts_with('-') || self.shell_options && t.starts_with('+'));
            if !option {
                break;
            }
            let (name, attached) = match t.split_once('=') {
                Some((n, _)) if t.starts_with("--") => (n, true),
                _ => (t, false),
            };
            if self.script_words.contains(&name) {
                return match at(i + 1) {
                    Some(_) => Source::File(i + 1),
                    None => Source::Module,
                };
            }
            if self.long_code.contains(&name) {
                return match attached {
                    true => Source::Code {
                        index: i,
                        offset: name.len() + 1,
                    },
                    false => next_code(i),
                };
            }
            // A whole word with a value: `--require X`, and Erlang-style `-pa DIR`.
            if t.starts_with("--") || self.long_value.contains(&name) {
                i += if !attached && self.long_value.contains(&name) {
                    2
                } else {
                    1
                };
                continue;
            }
            // Short options, one or grouped: each letter's class says what follows it.
            let mut skip_next = false;
            let mut letters = t.char_indices().skip(1).peekable();
            while let Some((pos, c)) = letters.next() {
                let rest = pos + c.len_utf8();
                let has = |set: &str| set.contains(c);
                if has(self.code) && self.code_is_operand {
                    code_operand = true;
                } else if has(self.code) {
                    return match rest < t.len() {
                        true => Source::Code {
                            index: i,
                            offset: rest,
                        },
                        false => next_code(i),
                    };
                } else if has(self.script) {
                    return match (rest == t.len(), at(i + 1)) {
                        (true, Some(_)) => Source::File(i + 1),
                        _ => Source::Module,
                    };
                } else if has(self.module) {
                    return Source::Module;
                } else if has(self.stdin) {
                    stdin = true;
                } else if has(self.value) {
                    skip_next = rest == t.len();
                    break;
                } else if has(self.attached) {
                    break;
                } else if has(self.digits) {
                    // Octal digits, or `x` and hex digits (`-0x1FF`); `-le` is `-l`, `-e`.
                    while letters.next_if(|(_, d)| d.is_digit(8)).is_some() {}
                    if letters.next_if(|(_, d)| *d == 'x').is_some() {
                        while letters.next_if(|(_, d)| d.is_ascii_hexdigit()).is_some() {}
                    }
                }
                if !self.grouped {
                    break;
                }
            }
            i += if skip_next { 2 } else { 1 };
        }
        match at(i) {
            Some(_) if code_operand => Source::Code {
                index: i,
                offset: 0,
            },
            None if code_operand => Source::MissingCode,
            Some(_) if !self.script_words.is_empty() => Source::Module,
            Some(_) if !stdin => Source::File(i),
            _ => Source::Stdin { from: i },
        }
    }

    /// True when `word` is one of the options that take code, written alone (`-e`, `--eval`).
    pub fn is_code_option(&self, word: &str) -> bool {
        self.long_code.contains(&word)
            || (word.len() == 2 && word.starts_with('-') && self.code.contains(&word[1..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(line: &str) -> String {
        let mut words = line.split(' ');
        let program = words.next().unwrap_or_default();
        let args: Vec<&str> = words.collect();
        match switches(program).map(|s| s.source(&args)) {
            Some(Source::Code { index, offset }) => format!("code {}", &args[index][offset..]),
            Some(Source::File(i)) => format!("file {}", args[i]),
            Some(Source::Stdin { from }) => format!("stdin {from}"),
            Some(Source::MissingCode) => "missing".into(),
            Some(Source::Module) => "module".into(),
            None => "none".into(),
        }
    }

    #[test]
    fn each_interpreter_reads_its_options_as_it_does() {
        // Shells: `-c` is a flag and the code the first operand.
        assert_eq!(source("bash -xc ls a"), "code ls");
        assert_eq!(source("bash -c -- ls"), "code ls");
        assert_eq!(source("bash -c"), "missing");
        assert_eq!(source("fish --command=ls"), "code ls");
        assert_eq!(source("bash -x run.sh"), "file run.sh");
        assert_eq!(source("bash -o pipefail run.sh"), "file run.sh");
        assert_eq!(source("bash +o pipefail run.sh"), "file run.sh");
        assert_eq!(source("bash -s a b"), "stdin 1");
        assert_eq!(source("bash"), "stdin 0");
        assert_eq!(source("bash - x.sh"), "file x.sh");
        // Grouped options ending in the code option, and code glued to it.
        assert_eq!(source("perl -lne C f"), "code C");
        assert_eq!(source("perl -0777 -ne C"), "code C");
        assert_eq!(source("perl -I lib -e C"), "code C");
        assert_eq!(source("perl -ie s/a/b/ f"), "file s/a/b/");
        assert_eq!(source("python3 -Ic C a"), "code C");
        assert_eq!(source("python3 -cC"), "code C");
        assert_eq!(source("python3 -Wignore -c C"), "code C");
        assert_eq!(source("python3 -m pytest -c x"), "module");
        assert_eq!(source("python3 -u - a"), "stdin 2");
        assert_eq!(source("python3 -- x.py"), "file x.py");
        assert_eq!(source("ruby -we C"), "code C");
        assert_eq!(source("ruby -r json -e C"), "code C");
        assert_eq!(source("node --eval=C"), "code C");
        assert_eq!(source("node -pe C"), "code C");
        assert_eq!(source("node --require ./r.js app.js"), "file app.js");
        assert_eq!(source("php -f x.php"), "file x.php");
        assert_eq!(source("php -rC"), "code C");
        assert_eq!(source("julia --threads 4 -e C"), "code C");
        assert_eq!(source("Rscript -e C"), "code C");
        assert_eq!(source("lua5.4 -e C"), "code C");
        assert_eq!(source("elixir -e C"), "code C");
        assert_eq!(source("elixir --sname n -pa ebin --eval C"), "code C");
        assert_eq!(source("iex -S mix"), "module");
        assert_eq!(source("elixir -r lib.exs run.exs"), "file run.exs");
        assert_eq!(source("mix run -e C"), "code C");
        assert_eq!(source("mix run --no-halt -r x.exs --eval C"), "code C");
        assert_eq!(source("mix run priv/seeds.exs"), "file priv/seeds.exs");
        assert_eq!(source("mix test"), "module");
        assert_eq!(source("mix run"), "stdin 1");
        assert_eq!(source("groovy -cp lib -e C"), "code C");
        assert_eq!(source("groovy build.groovy"), "file build.groovy");
        assert_eq!(source("groovysh --evaluate C"), "code C");
        assert_eq!(source("jshell -R-Xmx1g -"), "stdin 2");
        assert_eq!(source("jshell --class-path lib s.jsh"), "file s.jsh");
        assert_eq!(source("scala -cp x -e C"), "code C");
        assert_eq!(source("scala-cli run --scala-snippet C"), "code C");
        assert_eq!(source("scala-cli compile ."), "module");
        assert_eq!(source("kotlinc -e C"), "code C");
        assert_eq!(source("kotlinc -cp lib -expression C"), "code C");
        assert_eq!(source("kotlinc -script x.kts"), "file x.kts");
        assert_eq!(
            source("kotlinc Main.kt -include-runtime -d app.jar"),
            "module"
        );
        assert_eq!(source("kotlin x.main.kts"), "file x.main.kts");
        assert_eq!(source("tclsh x.tcl"), "file x.tcl");
        assert_eq!(source("deno eval --quiet C"), "code C");
        assert_eq!(source("deno run main.ts"), "module");
        assert_eq!(source("frobnicate -e C"), "none");
    }
}

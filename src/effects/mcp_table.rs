//! The built-in MCP tool models, as data: which arguments of which MCP tools carry which
//! effect. Same fields as a policy's `tool_models` (see `ToolModel` and docs/POLICY.md); kept
//! in Rust rather than parsed from YAML at start-up, which cost a hook process about 3 M
//! instructions (more than the whole rest of an MCP call).
//!
//! The first model whose `tools` glob matches (and whose `requires` arguments are all present)
//! applies, so specific entries come before generic ones. Tool names are matched on any server
//! name: servers are installed under names of the user's choosing.

/// One built-in model (the static form of `ToolModel`).
pub(super) struct Builtin {
    pub tools: &'static [&'static str],
    pub requires: &'static [&'static str],
    pub read: &'static [&'static str],
    pub list: &'static [&'static str],
    pub write: &'static [&'static str],
    pub content: &'static [&'static str],
    pub mode: &'static [&'static str],
    pub into: &'static [&'static str],
    pub command: &'static [&'static str],
    pub sql: &'static [&'static str],
    pub engine: Option<&'static str>,
    pub url: &'static [&'static str],
    pub send: Option<&'static str>,
    pub argv: &'static [&'static str],
}

const NONE: Builtin = Builtin {
    tools: &[],
    requires: &[],
    read: &[],
    list: &[],
    write: &[],
    content: &[],
    mode: &[],
    into: &[],
    command: &[],
    sql: &[],
    engine: None,
    url: &[],
    send: None,
    argv: &[],
};

pub(super) static BUILTIN: &[Builtin] = &[
    // GitHub and GitLab: contents go to the forge, not to a local file
    Builtin {
        tools: &[
            "mcp__*__create_or_update_file",
            "mcp__*__push_files",
            "mcp__*__create_pull_request",
            "mcp__*__create_issue",
            "mcp__*__add_issue_comment",
            "mcp__*__update_issue",
            "mcp__*__create_pull_request_review",
            "mcp__*__create_repository",
            "mcp__*__fork_repository",
            "mcp__*__create_branch",
            "mcp__*__delete_file",
        ],
        requires: &["owner", "repo"],
        content: &[
            "content",
            "files.content",
            "files.path",
            "body",
            "title",
            "path",
        ],
        send: Some("github.com"),
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__create_or_update_file",
            "mcp__*__push_files",
            "mcp__*__create_merge_request",
            "mcp__*__create_issue",
            "mcp__*__create_note",
            "mcp__*__create_issue_note",
            "mcp__*__update_issue",
            "mcp__*__create_branch",
            "mcp__*__delete_file",
        ],
        requires: &["project_id"],
        content: &[
            "content",
            "files.content",
            "files.file_path",
            "description",
            "body",
            "title",
            "file_path",
        ],
        send: Some("gitlab.com"),
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__create_gist",
            "mcp__*__update_gist",
            "mcp__*__gist_create",
        ],
        content: &["files", "content", "description"],
        send: Some("gist.github.com"),
        ..NONE
    },
    // Forge tools that amount to a git or gh command: judged as that command is.
    Builtin {
        // Moving a branch through the API is a push; with `force` it is `git push --force`.
        tools: &[
            "mcp__*__update_ref",
            "mcp__*__update_reference",
            "mcp__*__update_git_ref",
        ],
        requires: &["owner", "repo", "ref", "sha"],
        argv: &["git", "push", "{force?--force}", "origin", "{sha}:{ref}"],
        ..NONE
    },
    Builtin {
        // Granting a repository permission is the REST call `gh api` makes.
        tools: &[
            "mcp__*__add_collaborator",
            "mcp__*__add_repository_collaborator",
            "mcp__*__add_repo_collaborator",
            "mcp__*__update_collaborator",
        ],
        requires: &["owner", "repo"],
        argv: &[
            "gh",
            "api",
            "-X",
            "PUT",
            "repos/{owner}/{repo}/collaborators/{username}",
            "-f permission={permission}",
        ],
        ..NONE
    },
    Builtin {
        // Other forge tools (search, get_file_contents, list_issues…) touch no local resource.
        tools: &["mcp__*github*__*", "mcp__*gitlab*__*", "mcp__gh__*"],
        ..NONE
    },
    // Kubernetes and Helm: judged as the kubectl/helm command they amount to
    Builtin {
        tools: &[
            "mcp__*__kubectl_delete",
            "mcp__*__delete_resource",
            "mcp__*__k8s_delete",
            "mcp__*__delete_pod",
            "mcp__*__delete_deployment",
            "mcp__*__delete_namespace",
        ],
        argv: &[
            "kubectl",
            "delete",
            "{resourceType}",
            "{kind}",
            "{resource_type}",
            "{name}",
            "{names}",
            "-n {namespace}",
            "{allNamespaces?--all-namespaces}",
            "{force?--force}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__kubectl_generic", "mcp__*__kubectl"],
        argv: &[
            "kubectl",
            "{command}",
            "{subCommand}",
            "{resourceType}",
            "{name}",
            "-n {namespace}",
            "{flags}",
            "{args}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__exec_in_pod",
            "mcp__*__pod_exec",
            "mcp__*__pods_exec",
            "mcp__*__exec_pod",
            "mcp__*__kubectl_exec",
        ],
        argv: &[
            "kubectl",
            "exec",
            "{name}",
            "{pod}",
            "-n {namespace}",
            "--",
            "{command}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__uninstall_helm_chart", "mcp__*__helm_uninstall"],
        argv: &["helm", "uninstall", "{name}", "{release}", "-n {namespace}"],
        ..NONE
    },
    Builtin {
        // Reads of cluster state (get, describe, logs): no local effect.
        tools: &["mcp__*__kubectl_*", "mcp__*kubernetes*__*", "mcp__*k8s*__*"],
        ..NONE
    },
    // Docker
    Builtin {
        tools: &[
            "mcp__*__run_container",
            "mcp__*__run-container",
            "mcp__*__create_container",
            "mcp__*__create-container",
            "mcp__*__docker_run",
            "mcp__*__container_run",
            "mcp__*__container_create",
            // A docker server's own `run` and `create`.
            "mcp__*docker*__run",
            "mcp__*docker*__create",
            "mcp__*podman*__run",
        ],
        argv: &[
            "docker",
            "run",
            "{privileged?--privileged}",
            "-v {volumes}",
            "-v {binds}",
            "-v {mounts}",
            "--network {network_mode}",
            "--pid {pid_mode}",
            "{image}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__remove_container",
            "mcp__*__remove-container",
            "mcp__*__container_remove",
        ],
        argv: &[
            "docker",
            "rm",
            "{force?-f}",
            "{container_id}",
            "{container_name}",
            "{name}",
            "{id}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__remove_volume",
            "mcp__*__remove-volume",
            "mcp__*__volume_remove",
        ],
        argv: &[
            "docker",
            "volume",
            "rm",
            "{force?-f}",
            "{volume_name}",
            "{name}",
            "{id}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__remove_image", "mcp__*__remove-image"],
        argv: &[
            "docker",
            "rmi",
            "{force?-f}",
            "{image}",
            "{image_id}",
            "{name}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__system_prune",
            "mcp__*__prune*",
            "mcp__*docker*__prune",
        ],
        argv: &[
            "docker",
            "system",
            "prune",
            "-f",
            "{all?-a}",
            "{volumes?--volumes}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__run_container",
            "mcp__*__create-container",
            "mcp__*__create_container",
        ],
        argv: &["docker", "run", "{volumes}", "{image}", "{command}"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__exec_container",
            "mcp__*__container_exec",
            "mcp__*__docker_exec",
        ],
        argv: &[
            "docker",
            "exec",
            "{container_id}",
            "{container}",
            "{name}",
            "{command}",
        ],
        ..NONE
    },
    // Redis, MongoDB, Terraform and Heroku servers: judged as the CLI call they amount to.
    Builtin {
        tools: &[
            "mcp__*__flushall",
            "mcp__*__flush_all",
            "mcp__*__flushdb",
            "mcp__*__flush_db",
        ],
        argv: &["redis-cli", "flushall"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__drop_database",
            "mcp__*__drop-database",
            "mcp__*__dropDatabase",
        ],
        requires: &["database"],
        argv: &["mongosh", "{database}", "--eval", "db.dropDatabase()"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__drop_collection",
            "mcp__*__drop-collection",
            "mcp__*__dropCollection",
        ],
        requires: &["collection"],
        argv: &[
            "mongosh",
            "{database}",
            "--eval",
            "db.getCollection('{collection}').drop()",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*terraform*__apply*", "mcp__*__terraform_apply"],
        argv: &[
            "terraform",
            "apply",
            "{auto_approve?-auto-approve}",
            "{autoApprove?-auto-approve}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*terraform*__destroy*", "mcp__*__terraform_destroy"],
        argv: &[
            "terraform",
            "destroy",
            "{auto_approve?-auto-approve}",
            "{autoApprove?-auto-approve}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*heroku*__destroy_app",
            "mcp__*heroku*__delete_app",
            "mcp__*__heroku_destroy_app",
        ],
        argv: &[
            "heroku",
            "apps:destroy",
            "--app",
            "{app}",
            "{name}",
            "--confirm",
            "{app}",
            "{name}",
        ],
        ..NONE
    },
    // Cloud CLIs
    Builtin {
        tools: &[
            "mcp__*__call_aws",
            "mcp__*__aws_cli",
            "mcp__*__run_aws_command",
        ],
        command: &["cli_command", "command"],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__run_gcloud_command", "mcp__*__gcloud"],
        argv: &["gcloud", "{args}"],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__az_cli", "mcp__*__run_az_command"],
        argv: &["az", "{args}", "{command}"],
        ..NONE
    },
    // Git servers
    Builtin {
        tools: &["mcp__*__git_push"],
        argv: &["git", "push", "{force?--force}", "{remote}", "{branch}"],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_reset"],
        argv: &[
            "git",
            "reset",
            "--{mode}",
            "{hard?--hard}",
            "{target}",
            "{commit}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_clean"],
        argv: &["git", "clean", "{force?-f}", "-d", "{dryRun?-n}"],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_checkout"],
        argv: &[
            "git",
            "checkout",
            "{force?--force}",
            "{branch_name}",
            "{branch}",
            "{target}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_branch_delete", "mcp__*__git_delete_branch"],
        argv: &[
            "git",
            "branch",
            "{force?-D}",
            "-d",
            "{branch_name}",
            "{branch}",
        ],
        ..NONE
    },
    // A remote tool (`mode`: add, set-url, rename, list…) is the `git remote` command it runs.
    Builtin {
        tools: &["mcp__*__git_remote"],
        argv: &[
            "git",
            "remote",
            "{mode}",
            "{push?--push}",
            "{name}",
            "{newName}",
            "{new_name}",
            "{url}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_remote_add"],
        argv: &["git", "remote", "add", "{name}", "{url}"],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_remote_set_url"],
        argv: &["git", "remote", "set-url", "{name}", "{url}"],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_config", "mcp__*__git_set_config"],
        argv: &["git", "config", "{key}", "{value}"],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__git_*"],
        list: &["repo_path", "path"],
        ..NONE
    },
    // SQL servers: the statement is judged like SQL given to the client in a shell
    Builtin {
        tools: &["mcp__*mysql*__*", "mcp__*mariadb*__*"],
        sql: &["sql", "query", "statement"],
        engine: Some("mysql"),
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*sqlite*__*",
            "mcp__*__read_query",
            "mcp__*__write_query",
            "mcp__*__create_table",
        ],
        sql: &["sql", "query", "statement"],
        engine: Some("sqlite3"),
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*postgres*__*",
            "mcp__*pg*__*",
            "mcp__*supabase*__*",
            "mcp__*neon*__*",
            "mcp__*__query",
            "mcp__*__execute_sql",
            "mcp__*__run_sql",
            "mcp__*__run_query",
            "mcp__*__sql_query",
            "mcp__*__execute_query",
            "mcp__*__apply_migration",
        ],
        sql: &["sql", "query", "statement"],
        engine: Some("psql"),
        ..NONE
    },
    // Shell, terminal and process runners: the command goes through the Bash analysis
    Builtin {
        tools: &[
            "mcp__*__execute_command",
            "mcp__*__run_command",
            "mcp__*__exec_command",
            "mcp__*__shell_execute",
            "mcp__*__shell_exec",
            "mcp__*__run_shell",
            "mcp__*__run_shell_command",
            "mcp__*__execute_shell",
            "mcp__*__run_in_terminal",
            "mcp__*__write_to_terminal",
            "mcp__*__terminal_*",
            "mcp__*__start_process",
            "mcp__*__bash",
            "mcp__*__shell",
            "mcp__*__run",
            "mcp__*__exec",
            "mcp__*__execute",
            "mcp__*__run_script",
            "mcp__*__execute_script",
        ],
        command: &["command", "cmd", "script", "commandLine", "command_line"],
        ..NONE
    },
    Builtin {
        // Input typed into a running shell or REPL is a command line too.
        tools: &[
            "mcp__*__interact_with_process",
            "mcp__*__send_input",
            "mcp__*__send_keys",
            "mcp__*__write_stdin",
        ],
        command: &["input", "keys", "text", "data"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__kill_process",
            "mcp__*__force_terminate",
            "mcp__*__kill",
        ],
        argv: &["kill", "{pid}", "{process}"],
        ..NONE
    },
    // Filesystem servers (filesystem, desktop-commander and alike)
    Builtin {
        tools: &[
            "mcp__*__read_file",
            "mcp__*__read_text_file",
            "mcp__*__read_media_file",
            "mcp__*__read_multiple_files",
            "mcp__*__get_file_contents",
            "mcp__*__view_file",
            "mcp__*__open_file",
            "mcp__*__cat",
            "mcp__*__head_file",
            "mcp__*__tail_file",
            "mcp__*__read",
        ],
        read: &["path", "paths", "file_path", "filePath", "file", "files"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__write_file",
            "mcp__*__create_file",
            "mcp__*__append_file",
            "mcp__*__append_to_file",
            "mcp__*__save_file",
            "mcp__*__write",
            "mcp__*__overwrite_file",
            "mcp__*__put_file",
        ],
        write: &["path", "file_path", "filePath", "file"],
        content: &["content", "text", "data", "contents"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__edit_file",
            "mcp__*__edit_block",
            "mcp__*__replace_in_file",
            "mcp__*__str_replace",
            "mcp__*__apply_patch",
            "mcp__*__patch_file",
            "mcp__*__insert_text",
            "mcp__*__edit",
        ],
        write: &["path", "file_path", "filePath", "file"],
        content: &[
            "edits.newText",
            "edits.new_text",
            "edits.new_string",
            "new_string",
            "newText",
            "new_text",
            "new_str",
            "replacement",
            "patch",
            "diff",
            "text",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__move_file",
            "mcp__*__rename_file",
            "mcp__*__move",
            "mcp__*__rename",
        ],
        argv: &[
            "mv",
            "{source}",
            "{src}",
            "{from}",
            "{old_path}",
            "{destination}",
            "{dest}",
            "{to}",
            "{new_path}",
        ],
        ..NONE
    },
    Builtin {
        tools: &["mcp__*__copy_file", "mcp__*__copy"],
        argv: &[
            "cp",
            "-r",
            "{source}",
            "{src}",
            "{from}",
            "{destination}",
            "{dest}",
            "{to}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__delete_file",
            "mcp__*__delete_directory",
            "mcp__*__remove_file",
            "mcp__*__remove_directory",
            "mcp__*__delete",
            "mcp__*__remove",
            "mcp__*__delete_path",
            "mcp__*__rm",
            "mcp__*__trash",
        ],
        argv: &[
            "rm",
            "{recursive?-r}",
            "-f",
            "{path}",
            "{paths}",
            "{file_path}",
            "{file}",
            "{directory}",
        ],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__create_directory",
            "mcp__*__make_directory",
            "mcp__*__mkdir",
        ],
        argv: &["mkdir", "-p", "{path}", "{paths}", "{directory}"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__chmod",
            "mcp__*__set_permissions",
            "mcp__*__change_permissions",
        ],
        argv: &["chmod", "{mode}", "{permissions}", "{path}", "{file_path}"],
        ..NONE
    },
    Builtin {
        tools: &[
            "mcp__*__list_directory",
            "mcp__*__list_directory_with_sizes",
            "mcp__*__directory_tree",
            "mcp__*__search_files",
            "mcp__*__search_code",
            "mcp__*__get_file_info",
            "mcp__*__list_allowed_directories",
            "mcp__*__list_files",
            "mcp__*__list_dir",
            "mcp__*__ls",
            "mcp__*__find_files",
            "mcp__*__glob",
            "mcp__*__grep",
            "mcp__*__start_search",
            "mcp__*__tree",
        ],
        list: &["path", "paths", "directory", "dir", "root"],
        ..NONE
    },
    // Fetch and browser servers: the URL is fetched (and what it carries is sent)
    Builtin {
        tools: &[
            "mcp__*__fetch",
            "mcp__*__fetch_*",
            "mcp__*__*_fetch",
            "mcp__*__puppeteer_navigate",
            "mcp__*__playwright_navigate",
            "mcp__*__browser_navigate",
            "mcp__*__navigate",
            "mcp__*__scrape",
            "mcp__*__firecrawl_scrape",
            "mcp__*__firecrawl_crawl",
            "mcp__*__get_url",
            "mcp__*__http_get",
            "mcp__*__http_request",
            "mcp__*__curl",
            "mcp__*__open_url",
            "mcp__*__browse",
            "mcp__*__webfetch",
            "mcp__*__web_fetch",
            "mcp__*__read_url",
        ],
        content: &["body", "data"],
        url: &["url", "urls", "uri", "href", "link"],
        ..NONE
    },
];

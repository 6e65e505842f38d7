//! publishing: releasing packages, images and tags to the world.

use super::common::positionals;
use super::{Check, Example, Rule};
use crate::call::{Call, Effect as Fx};
use crate::normalize::Scope;
use crate::shell::Command;
use crate::verdict::Effect::Ask;

const PACK: &str = "publishing";

fn is_version_tag(t: &str) -> bool {
    let t = t.trim_start_matches("refs/tags/");
    let t = t.strip_prefix('v').unwrap_or(t);
    t.split('.').count() >= 2
        && t.split('.')
            .next()
            .is_some_and(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()))
}

/// `gh api -X PATCH repos/O/R -f private=false`, `glab api -X PUT projects/ID -f
/// visibility=public`: the REST call that makes a repository public, which `gh repo edit
/// --visibility public` is too.
fn api_makes_public(c: &Command) -> bool {
    let read = c
        .option_value(Some('X'), &["method"])
        .is_some_and(|m| m.eq_ignore_ascii_case("GET") || m.eq_ignore_ascii_case("HEAD"));
    let repository = c.args.iter().any(|a| {
        let path = a.text.split(['?', '#']).next().unwrap_or("");
        let steps: Vec<&str> = path.trim_matches('/').split('/').collect();
        matches!(steps.as_slice(), ["repos", _, _] | ["projects", _])
    });
    let public = c.args.iter().any(|a| {
        let field = a.text.to_ascii_lowercase().replace(' ', "");
        let field = field
            .rsplit_once("field=")
            .map_or(field.as_str(), |(_, f)| f);
        matches!(field, "private=false" | "visibility=public")
    });
    !read && repository && public
}

/// Whether an image reference names a registry on this machine (`localhost:5000/app`,
/// `127.0.0.1:5000/app:dev`): a push there publishes nothing.
fn local_registry(image: &str) -> bool {
    let Some((host, _)) = image.split_once('/') else {
        return false;
    };
    let name = match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => host,
    };
    crate::vocab::is_local_host(name.trim_matches(['[', ']']))
}

fn publish(c: &Command, _: &Scope) -> Option<String> {
    if c.has_flag(Some('n'), &["dry-run"]) && c.program != "git" {
        return None;
    }
    let ops = positionals(c);
    let first = ops.first().copied().unwrap_or("");
    let second = ops.get(1).copied();
    let hit = match c.program.as_str() {
        "npm" | "yarn" | "pnpm" | "bun" => {
            matches!(first, "publish" | "unpublish")
                || (first == "npm" && matches!(second, Some("publish" | "unpublish")))
        }
        "cargo" => {
            first == "publish" || (first == "release" && c.has_flag(Some('x'), &["execute"]))
        }
        "twine" => first == "upload",
        "poetry" | "flit" | "hatch" | "uv" | "pdm" => first == "publish",
        "gem" => first == "push",
        "lerna" => first == "publish",
        "changeset" => first == "publish",
        "docker" | "podman" | "buildah" | "nerdctl" => {
            let pushed = match (first, second) {
                ("push", _) => second,
                ("image", Some("push")) => ops.get(2).copied(),
                _ => None,
            };
            pushed.is_some_and(|image| !local_registry(image))
                || (first == "buildx" && c.args.iter().any(|a| a.text == "--push"))
        }
        // A copy to a remote registry (`docker://HOST/…`), not to a local one or a directory.
        "skopeo" => {
            first == "copy"
                && ops
                    .last()
                    .and_then(|d| d.strip_prefix("docker://"))
                    .is_some_and(|image| !local_registry(image))
        }
        "crane" | "gcrane" => {
            matches!(first, "push" | "copy" | "cp")
                && ops.get(2).is_some_and(|image| !local_registry(image))
        }
        // An OCI artifact pushed (or copied) to a remote registry: `oras push REF FILE…`,
        // `oras cp SRC DST`.
        "oras" => match first {
            "push" => ops.get(1).is_some_and(|r| !local_registry(r)),
            "cp" | "copy" => ops.get(2).is_some_and(|r| !local_registry(r)),
            _ => false,
        },
        "maturin" => matches!(first, "publish" | "upload"),
        "deno" | "jsr" => first == "publish",
        "snapcraft" => matches!(first, "upload" | "push" | "release"),
        // Each run releases what the commits say, unless it is a dry run.
        "semantic-release" | "release-it" => true,
        "cargo-release" => c.has_flag(Some('x'), &["execute"]),
        "gh" | "glab" if first == "api" => api_makes_public(c),
        "gh" => {
            // A draft is seen by the repository's writers only, until it is published.
            let draft = c.args.iter().any(|a| a.text == "--draft" || a.text == "-d");
            (first == "release"
                && matches!(second, Some("create" | "upload" | "edit"))
                && !(draft && second != Some("upload")))
                // A new public repository given the local code.
                || (first == "repo"
                    && second == Some("create")
                    && c.has_flag(None, &["public"])
                    && (c.has_flag(None, &["push"])
                        || c.option_value(Some('s'), &["source"]).is_some()))
                // Making a repository public publishes all of its history.
                || (first == "repo"
                    && second == Some("edit")
                    && c
                        .option_value(None, &["visibility"])
                        .is_some_and(|v| v == "public"))
        }
        "vsce" | "ovsx" => first == "publish",
        "mvn" | "mvnw" => ops.contains(&"deploy"),
        "gradle" | "gradlew" => ops.iter().any(|o| o.starts_with("publish")),
        "git" => {
            first == "push"
                && (c.has_flag(None, &["tags", "follow-tags"])
                    || ops.iter().skip(2).any(|o| is_version_tag(o)))
        }
        "dotnet" => first == "nuget" && second == Some("push"),
        "helm" => first == "push",
        "dart" | "flutter" => first == "pub" && second == Some("publish"),
        "swift" => first == "package-registry" && second == Some("publish"),
        "conda" | "anaconda" => first == "upload",
        "mix" => first == "hex.publish",
        "rebar3" => first == "hex" && second == Some("publish"),
        "cabal" => first == "upload",
        "opam" => first == "publish",
        "pod" => first == "trunk" && second == Some("push"),
        "sbt" => ops.iter().any(|o| o.starts_with("publish")),
        "lein" => first == "deploy",
        "melos" => first == "publish",
        // A snapshot build publishes nothing.
        "goreleaser" => first == "release" && !c.has_flag(None, &["snapshot"]),
        "jreleaser" => matches!(first, "release" | "full-release" | "deploy" | "publish"),
        _ => false,
    };
    // Who may publish, which version everyone installs, and who may install, changed on the
    // registry: each reaches every user of the package as a release does.
    let registry_change = matches!(c.program.as_str(), "npm" | "pnpm" | "yarn")
        && match first {
            "dist-tag" | "dist-tags" => matches!(second, Some("add" | "rm")),
            "owner" | "author" => matches!(second, Some("add" | "rm")),
            "access" => matches!(second, Some("public" | "set" | "grant" | "revoke")),
            "deprecate" => true,
            _ => false,
        };
    if registry_change {
        return Some(format!(
            "`{}` changes a published package for everyone who installs it",
            c.line().chars().take(80).collect::<String>()
        ));
    }
    let what = if ops.contains(&"unpublish") {
        "withdraws a published package from everyone who depends on it"
    } else if (c.program == "gh" && first == "repo") || first == "api" {
        "makes the repository and its whole history public"
    } else {
        "publishes a release"
    };
    hit.then(|| format!("`{}` {what}", c.line().chars().take(80).collect::<String>()))
}

/// A tool that publishes what a service held back (`Effect::Publish`: an MCP tool's
/// `publish_package`, `create_release`, `update_repository {"private": false}`), as the
/// commands above do.
fn service_publish(call: &Call, _: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Fx::Publish { what, tool } => Some(format!("`{tool}` {what}")),
        _ => None,
    })
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "publish-release",
        pack: PACK,
        effect: Ask,
        reason: "Publishing a package, image or release tag cannot be taken back; confirm it",
        programs: &[
            "npm",
            "yarn",
            "pnpm",
            "bun",
            "cargo",
            "twine",
            "poetry",
            "flit",
            "hatch",
            "uv",
            "pdm",
            "gem",
            "docker",
            "podman",
            "buildah",
            "nerdctl",
            "skopeo",
            "crane",
            "gcrane",
            "oras",
            "maturin",
            "deno",
            "jsr",
            "snapcraft",
            "semantic-release",
            "release-it",
            "cargo-release",
            "gh",
            "glab",
            "vsce",
            "ovsx",
            "mvn",
            "mvnw",
            "gradle",
            "gradlew",
            "git",
            "dotnet",
            "helm",
            "lerna",
            "changeset",
            "dart",
            "flutter",
            "swift",
            "conda",
            "anaconda",
            "mix",
            "rebar3",
            "cabal",
            "opam",
            "pod",
            "sbt",
            "lein",
            "melos",
            "goreleaser",
            "jreleaser",
        ],
        check: Check::Command(publish),
        refused: &[
            Example::bash("npm publish --access public"),
            Example::bash("cargo publish"),
            Example::bash("twine upload dist/*"),
            Example::bash("docker push ghcr.io/acme/app:1.0"),
            Example::bash("oras push ghcr.io/acme/policy:1.0 policy.wasm"),
            Example::bash("gh release create v1.2.0"),
            Example::bash("git push origin v1.2.3"),
            Example::bash("git push --tags"),
            Example::bash("npm --registry https://registry.npmjs.org publish"),
            Example::bash("lerna publish from-git --yes"),
            Example::bash("npm unpublish left-pad --force"),
            Example::bash(
                "gh repo edit --visibility public --accept-visibility-change-consequences",
            ),
            Example::bash("gh api -X PATCH repos/acme/app -f private=false"),
            Example::bash("gh api --method PATCH /repos/acme/app -F visibility=public"),
            Example::bash("glab api -X PUT projects/42 --field visibility=public"),
            Example::bash("dart pub publish --force"),
            Example::bash("flutter pub publish -f"),
            Example::bash("anaconda upload dist/pkg-1.0.tar.bz2"),
            Example::bash("mix hex.publish --yes"),
            Example::bash("goreleaser release --clean"),
            Example::bash("pod trunk push App.podspec"),
            Example::bash("sbt publishSigned"),
            Example::bash("npm dist-tag add pkg@2.0.0 latest"),
            Example::bash("npm owner add mallory pkg"),
            Example::bash("npm access public @acme/pkg"),
            Example::bash("npm deprecate pkg@1 \"use 2\""),
            Example::bash("gh repo create acme/leak --public --source=. --push"),
            Example::bash("nerdctl push ghcr.io/acme/app:1.0"),
            Example::bash("skopeo copy docker-archive:app.tar docker://docker.io/acme/app:1"),
            Example::bash("crane push app.tar ghcr.io/acme/app:1"),
            Example::bash("maturin publish"),
            Example::bash("deno publish"),
            Example::bash("npx jsr publish"),
            Example::bash("snapcraft upload --release stable app.snap"),
            Example::bash("npx semantic-release --no-ci"),
            Example::bash("npx release-it --ci"),
            Example::bash("cargo release --execute"),
        ],
        allowed: &[
            Example::bash("oras pull ghcr.io/acme/policy:1.0"),
            Example::bash("oras push localhost:5000/policy:dev policy.wasm"),
            Example::bash("gh api repos/acme/app --jq .visibility"),
            Example::bash("gh api -X PATCH repos/acme/app -f description='CLI tools'"),
            Example::bash("gh api -X PATCH repos/acme/app/issues/1 -f state=closed"),
            Example::bash("npm pack"),
            Example::bash("cargo package --list"),
            Example::bash("docker build -t app ."),
            Example::bash("gh pr create --fill"),
            Example::bash("git push origin feature/v2"),
            Example::bash("npm run build"),
            Example::bash("npm publish --dry-run"),
            Example::bash("cargo publish --dry-run"),
            Example::bash("dart pub publish --dry-run"),
            Example::bash("goreleaser release --snapshot --clean"),
            Example::bash("npm dist-tag ls pkg"),
            Example::bash("npm owner ls pkg"),
            Example::bash("mix hex.info"),
            Example::bash("sbt test"),
            Example::bash("gh release create v1.2.3 --draft --generate-notes"),
            Example::bash("docker push localhost:5000/app:dev"),
            Example::bash("podman push 127.0.0.1:5000/app"),
            Example::bash("gh repo create acme/new-tool --private --source=. --push"),
            Example::bash("gh repo create acme/empty --public"),
            Example::bash("skopeo copy docker://ghcr.io/acme/app:1 dir:./app"),
            Example::bash("cargo release patch"),
            Example::bash("npx semantic-release --dry-run"),
            Example::bash("deno task build"),
        ],
    },
    Rule {
        id: "service-publish",
        pack: PACK,
        effect: Ask,
        reason: "Publishing a package, image or release tag cannot be taken back; confirm it",
        programs: &[],
        check: Check::Call(service_publish),
        refused: &[
            Example::tool(
                "mcp__github__update_repository",
                r#"{"owner":"acme","repo":"internal","private":false}"#,
            ),
            Example::tool(
                "mcp__gitlab__update_project",
                r#"{"id":"42","visibility":"public"}"#,
            ),
            Example::tool(
                "mcp__github__create_release",
                r#"{"owner":"acme","repo":"app","tag_name":"v1.2.0"}"#,
            ),
            Example::tool("mcp__npm__publish_package", r#"{"path":"."}"#),
            Example::tool(
                "mcp__registry__unpublishVersion",
                r#"{"name":"pkg","version":"1.0.0"}"#,
            ),
        ],
        allowed: &[
            Example::tool(
                "mcp__github__create_repository",
                r#"{"name":"scratch","private":false}"#,
            ),
            Example::tool(
                "mcp__github__update_repository",
                r#"{"owner":"acme","repo":"app","description":"CLI"}"#,
            ),
            Example::tool(
                "mcp__github__update_repository",
                r#"{"owner":"acme","repo":"app","private":true}"#,
            ),
            Example::tool(
                "mcp__github__get_release",
                r#"{"owner":"acme","repo":"app","tag":"v1"}"#,
            ),
            Example::tool(
                "mcp__github__create_release",
                r#"{"owner":"acme","repo":"app","tag_name":"v1.2.0","draft":true}"#,
            ),
            Example::tool(
                "mcp__github__list_releases",
                r#"{"owner":"acme","repo":"app"}"#,
            ),
        ],
    },
];

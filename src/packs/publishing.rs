//! publishing: releasing packages, images and tags to the world.

use super::common::positionals;
use super::{Check, Example, Rule};
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
        "cargo" => first == "publish",
        "twine" => first == "upload",
        "poetry" | "flit" | "hatch" | "uv" | "pdm" => first == "publish",
        "gem" => first == "push",
        "lerna" => first == "publish",
        "changeset" => first == "publish",
        "docker" | "podman" | "buildah" => {
            first == "push"
                || (first == "image" && second == Some("push"))
                || (first == "buildx" && c.args.iter().any(|a| a.text == "--push"))
        }
        "gh" => {
            (first == "release" && matches!(second, Some("create" | "upload" | "edit")))
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
        _ => false,
    };
    let what = if ops.contains(&"unpublish") {
        "withdraws a published package from everyone who depends on it"
    } else if c.program == "gh" && first == "repo" {
        "makes the repository and its whole history public"
    } else {
        "publishes a release"
    };
    hit.then(|| format!("`{}` {what}", c.line().chars().take(80).collect::<String>()))
}

pub static RULES: &[Rule] = &[Rule {
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
        "gh",
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
    ],
    check: Check::Command(publish),
    refused: &[
        Example::bash("npm publish --access public"),
        Example::bash("cargo publish"),
        Example::bash("twine upload dist/*"),
        Example::bash("docker push ghcr.io/acme/app:1.0"),
        Example::bash("gh release create v1.2.0"),
        Example::bash("git push origin v1.2.3"),
        Example::bash("git push --tags"),
        Example::bash("npm --registry https://registry.npmjs.org publish"),
        Example::bash("lerna publish from-git --yes"),
        Example::bash("npm unpublish left-pad --force"),
        Example::bash("gh repo edit --visibility public --accept-visibility-change-consequences"),
    ],
    allowed: &[
        Example::bash("npm pack"),
        Example::bash("cargo package --list"),
        Example::bash("docker build -t app ."),
        Example::bash("gh pr create --fill"),
        Example::bash("git push origin feature/v2"),
        Example::bash("npm run build"),
        Example::bash("npm publish --dry-run"),
        Example::bash("cargo publish --dry-run"),
    ],
}];

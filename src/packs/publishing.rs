//! publishing: releasing packages, images and tags to the world.

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
    let ops: Vec<&str> = c.operands().iter().map(|w| w.text.as_str()).collect();
    let first = ops.first().copied().unwrap_or("");
    let hit = match c.program.as_str() {
        "npm" | "yarn" | "pnpm" | "bun" => {
            first == "publish" || (first == "npm" && ops.get(1) == Some(&"publish"))
        }
        "cargo" => first == "publish",
        "twine" => first == "upload",
        "poetry" | "flit" | "hatch" | "uv" | "pdm" => first == "publish",
        "gem" => first == "push",
        "docker" | "podman" | "buildah" => {
            first == "push"
                || (first == "image" && ops.get(1) == Some(&"push"))
                || (first == "buildx" && c.args.iter().any(|a| a.text == "--push"))
        }
        "gh" => first == "release" && matches!(ops.get(1), Some(&"create" | &"upload" | &"edit")),
        "vsce" | "ovsx" => first == "publish",
        "mvn" | "./mvnw" | "mvnw" => ops.contains(&"deploy"),
        "gradle" | "./gradlew" | "gradlew" => ops.iter().any(|o| o.starts_with("publish")),
        "git" => {
            first == "push"
                && (c.has_flag(None, &["tags", "follow-tags"])
                    || ops.iter().skip(2).any(|o| is_version_tag(o)))
        }
        "dotnet" => first == "nuget" && ops.get(1) == Some(&"push"),
        "helm" => first == "push",
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{}` publishes a release",
            c.line().chars().take(80).collect::<String>()
        )
    })
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
        "./mvnw",
        "mvnw",
        "gradle",
        "./gradlew",
        "gradlew",
        "git",
        "dotnet",
        "helm",
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
    ],
    allowed: &[
        Example::bash("npm pack"),
        Example::bash("cargo package --list"),
        Example::bash("docker build -t app ."),
        Example::bash("gh pr create --fill"),
        Example::bash("git push origin feature/v2"),
        Example::bash("npm run build"),
    ],
}];

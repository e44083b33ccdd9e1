"""The GitHub Action (action.yml) and the workflows in docs/ci.md that use it.

- action.yml validates against the schema of action metadata, and the workflows (the docs'
  two, and one that uses the action from its own checkout, so its inputs are checked too)
  pass actionlint.
- Each shell step of the action runs in order, as the runner runs it (``bash -eo pipefail``,
  with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP), on a real clone whose branch adds
  a case: statuses are recorded, the review and the scores reach the comment's body, and the
  last step fails the job exactly when a check or the gate failed.
- The comment script (actions/github-script) runs in Node.js against a stand-in for the
  GitHub API, the one part that cannot run here: one comment, created then edited.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kit import DATA, REPO_ROOT

ACTION = REPO_ROOT / "action.yml"
DOC = REPO_ROOT / "docs" / "ci.md"
BIN = Path(sys.executable).parent
CASE = """\
id: {id}
question: {question}
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: {quote}
"""
RET_001 = CASE.format(
    id="ret-001",
    question="How long to ask for a credit?",
    quote="A customer has 14 days from delivery to request a credit",
)
RET_002 = CASE.format(
    id="ret-002",
    question="How long to return a sale item?",
    quote="Items bought in a sale can be returned within 14 days.",
)


def action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return data


def doc_workflows() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_action_yml_matches_the_action_metadata_schema() -> None:
    done = subprocess.run(
        [BIN / "check-jsonschema", "--builtin-schema", "vendor.github-actions", ACTION],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_action_has_the_documented_shape() -> None:
    meta = action()
    assert meta["runs"]["using"] == "composite"
    assert set(meta["inputs"]) == {
        "working-directory",
        "python-version",
        "base",
        "comment",
        "results",
        "baseline",
        "github-token",
    }
    table = DOC.read_text(encoding="utf-8").split("| input |", 1)[1].split("\n\n", 1)[0]
    assert set(re.findall(r"^\| `([a-z-]+)` \|", table, re.MULTILINE)) == set(meta["inputs"])
    ids = [step.get("id") for step in meta["runs"]["steps"]]
    assert [i for i in ids if i] == ["lock", "check", "review", "score", "gate"]
    for step in meta["runs"]["steps"]:  # inputs reach scripts as variables, never as code
        assert "${{" not in step.get("run", ""), step["name"]
    post = next(s for s in meta["runs"]["steps"] if "github-script" in s.get("uses", ""))
    assert "github.event.pull_request.head.repo.full_name == github.repository" in post["if"]


def actionlint(folder: Path) -> subprocess.CompletedProcess[str]:
    """actionlint on the workflows of ``folder``, a git repository as it expects."""
    if not (folder / ".git").exists():
        subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True)
    return subprocess.run(
        [BIN / "actionlint", "-no-color"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_the_docs_workflows_pass_actionlint(tmp_path: Path) -> None:
    flows = tmp_path / ".github" / "workflows"
    flows.mkdir(parents=True)
    blocks = doc_workflows()
    assert len(blocks) == 2
    for n, block in enumerate(blocks):
        assert "uses: goldcase-dev/goldcase@v0.1.0" in block
        (flows / f"docs-{n}.yml").write_text(block, encoding="utf-8")
    linted = actionlint(tmp_path)
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_a_workflow_using_the_action_passes_actionlint_and_a_typo_does_not(tmp_path: Path) -> None:
    """``uses: ./``: actionlint reads the action's own inputs and outputs and checks the
    workflow against them."""
    shutil.copy(ACTION, tmp_path / "action.yml")
    flows = tmp_path / ".github" / "workflows"
    flows.mkdir(parents=True)
    local = doc_workflows()[1].replace("goldcase-dev/goldcase@v0.1.0", "./")
    (flows / "local.yml").write_text(local, encoding="utf-8")
    linted = actionlint(tmp_path)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    (flows / "local.yml").write_text(local.replace("baseline:", "basline:"), encoding="utf-8")
    typo = actionlint(tmp_path)
    assert typo.returncode == 1
    assert 'input "basline" is not defined in action "goldcase"' in typo.stdout


def run(cwd: Path, command: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    env.update(
        GIT_AUTHOR_NAME="A",
        GIT_AUTHOR_EMAIL="a@example.com",
        GIT_COMMITTER_NAME="C",
        GIT_COMMITTER_EMAIL="c@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        **extra,
    )
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A clone whose branch adds ret-002 (and bumps the version), as a pull request would."""
    upstream = tmp_path / "upstream"
    (upstream / "cases/golden").mkdir(parents=True)
    (upstream / "cases/dev").mkdir()
    (upstream / "corpus").mkdir()
    (upstream / "corpus/returns-policy.md").write_text(
        (DATA / "corpus/returns-policy.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    # a floor the gate can act on: with the default of 20, a slice this small never gates
    (upstream / "goldcase.toml").write_text("[composition]\nslice_floor = 8\n", "utf-8")
    (upstream / "cases/golden/ret-001.yaml").write_text(RET_001, encoding="utf-8")
    for n in range(10, 18):  # cases the pull request leaves alone, for the gate to count
        text = RET_001.replace("ret-001", f"ret-{n:03d}").replace("credit?", f"credit, {n}?")
        (upstream / f"cases/golden/ret-{n:03d}.yaml").write_text(text, encoding="utf-8")
    for command in ("git init -q -b main", "goldcase lock || true", "git add -A"):
        assert run(upstream, command).returncode == 0, command
    assert run(upstream, "git commit -q --no-verify --no-gpg-sign -m set").returncode == 0
    clone = tmp_path / "clone"
    assert run(tmp_path, f"git clone -q '{upstream}' '{clone}'").returncode == 0
    (clone / "cases/golden/ret-002.yaml").write_text(RET_002, encoding="utf-8")
    for command in ("git checkout -q -b feature", "goldcase lock || true", "git add -A"):
        assert run(clone, command).returncode == 0, command
    assert run(clone, "git commit -q --no-verify --no-gpg-sign -m 'add ret-002'").returncode == 0
    return clone


class Runner:
    """The action's shell steps, run in order with the runner's files and expressions."""

    def __init__(self, repo: Path, tmp: Path, inputs: dict[str, str]) -> None:
        self.repo, self.tmp = repo, tmp
        self.inputs = {
            name: str(spec.get("default", "")) for name, spec in action()["inputs"].items()
        }
        self.inputs.update(inputs)
        self.outputs: dict[str, dict[str, str]] = {}
        self.summary = tmp / "summary.md"
        self.summary.write_text("", encoding="utf-8")
        (tmp / "runner").mkdir()

    def value(self, expression: str) -> str:
        head, _, rest = expression.strip().partition(".")
        if head == "inputs":
            return self.inputs[rest]
        step, _, name = rest.partition(".outputs.")
        return self.outputs.get(step, {}).get(name, "")

    def expand(self, text: str) -> str:
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: self.value(m.group(1)), text)

    def wanted(self, condition: str | None) -> bool:
        """The conditions of the steps run here: `inputs.x != ''` joined by `&&`."""
        if condition is None:
            return True
        parts = [part.strip() for part in condition.split("&&")]
        return all(self.value(part.removesuffix("!= ''").strip()) != "" for part in parts)

    def run_all(self) -> dict[str, subprocess.CompletedProcess[str]]:
        ran: dict[str, subprocess.CompletedProcess[str]] = {}
        for number, step in enumerate(action()["runs"]["steps"]):
            if "run" not in step or "pip install" in step["run"] or not self.wanted(step.get("if")):
                continue  # setup-python and the install: goldcase is installed here already
            ran[step.get("id", step["name"])] = self.step(number, step)
            if ran[step.get("id", step["name"])].returncode != 0:
                break
        return ran

    def step(self, number: int, step: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        output = self.tmp / f"output-{number}"
        output.write_text("", encoding="utf-8")
        env = {key: self.expand(str(value)) for key, value in step.get("env", {}).items()}
        folder = self.repo / self.expand(step.get("working-directory", "."))
        done = run(
            folder,
            step["run"],
            GITHUB_OUTPUT=str(output),
            GITHUB_STEP_SUMMARY=str(self.summary),
            GITHUB_BASE_REF="main",
            RUNNER_TEMP=str(self.tmp / "runner"),
            **env,
        )
        lines = output.read_text(encoding="utf-8").splitlines()
        self.outputs[step.get("id", "")] = dict(line.split("=", 1) for line in lines)
        return done


def test_the_steps_on_a_pull_request_that_adds_a_case(pull_request: Path, tmp_path: Path) -> None:
    runner = Runner(pull_request, tmp_path, {})
    ran = runner.run_all()
    assert list(ran) == ["lock", "check", "review", "Fail when a check or the gate failed"]
    assert all(done.returncode == 0 for done in ran.values()), {k: v.stderr for k, v in ran.items()}
    assert runner.outputs["lock"] == {"status": "0"} and runner.outputs["check"] == {"status": "0"}
    assert all(line.startswith("::warning ") for line in ran["check"].stdout.splitlines()[:-1])
    body = Path(runner.outputs["review"]["body"]).read_text(encoding="utf-8")
    assert runner.summary.read_text(encoding="utf-8") == body
    assert "golden.version moved: `1` → `2`." in body
    assert "| `ret-002` | golden | added | — |" in body


def test_an_edit_without_a_bump_is_annotated_reviewed_and_fails_the_job(
    pull_request: Path, tmp_path: Path
) -> None:
    path = pull_request / "cases/golden/ret-001.yaml"
    path.write_text(RET_001.replace("14 days\n", "fourteen days\n"), encoding="utf-8")
    runner = Runner(pull_request, tmp_path, {})
    ran = runner.run_all()
    assert runner.outputs["lock"] == {"status": "1"} and runner.outputs["check"] == {"status": "1"}
    assert "GC401" in ran["lock"].stdout
    assert any(
        line.startswith("::error ") and "GC401" in line for line in ran["check"].stdout.splitlines()
    )
    assert "`ret-001`" in Path(runner.outputs["review"]["body"]).read_text(encoding="utf-8")
    last = ran["Fail when a check or the gate failed"]
    assert last.returncode == 1
    assert last.stdout.splitlines() == [
        "::error::golden.lock does not match the set: run goldcase lock and commit both files",
        "::error::goldcase check found errors: see the annotations",
    ]


def results(repo: Path, name: str, answer: str) -> Path:
    ids = sorted(path.stem for path in (repo / "cases" / "golden").glob("*.yaml"))
    lines = [{"id": case_id, "outcome": "answer", "answer": answer} for case_id in ids]
    path = repo / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(("head_answer", "gate"), [("14 days", "0"), ("no idea", "1")])
def test_a_run_is_scored_and_gated_and_both_join_the_comment(
    pull_request: Path, tmp_path: Path, head_answer: str, gate: str
) -> None:
    base = results(pull_request, "base.jsonl", "14 days")
    baseline = tmp_path / "main.json"
    scored = run(pull_request, f"goldcase score '{base}' --format json --out '{baseline}'")
    assert scored.returncode == 0, scored.stderr
    results(pull_request, "results.jsonl", head_answer)
    runner = Runner(pull_request, tmp_path, {"results": "results.jsonl", "baseline": str(baseline)})
    ran = runner.run_all()
    assert list(ran)[2:] == ["review", "score", "gate", "Fail when a check or the gate failed"]
    report = json.loads(Path(runner.outputs["score"]["report"]).read_text(encoding="utf-8"))
    assert report["total"] == 10
    assert runner.outputs["gate"] == {"status": gate}
    body = Path(runner.outputs["review"]["body"]).read_text(encoding="utf-8")
    assert "### goldcase score: task success" in body
    assert "goldcase compare" in body
    assert ran["Fail when a check or the gate failed"].returncode == int(gate)


HARNESS = """
const fs = require("fs");
const state = JSON.parse(fs.readFileSync(process.env.STATE, "utf8"));
const listComments = (args) => state.comments.filter((c) => c.issue === args.issue_number);
const github = {
  rest: {
    issues: {
      listComments,
      async updateComment({ comment_id, body }) {
        state.comments.find((c) => c.id === comment_id).body = body;
        state.calls.push("update");
      },
      async createComment({ issue_number, body }) {
        state.comments.push({ id: state.comments.length + 1, issue: issue_number, body });
        state.calls.push("create");
      },
    },
  },
  async paginate(method, args) {
    if (method !== listComments || args.per_page !== 100) throw new Error("unexpected call");
    return method(args);
  },
};
const context = { repo: { owner: "acme", repo: "golden" }, issue: { number: 7 } };
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const script = fs.readFileSync(process.env.SCRIPT, "utf8");
new AsyncFunction("require", "github", "context", script)(require, github, context).then(() => {
  fs.writeFileSync(process.env.STATE, JSON.stringify(state));
});
"""


def post(tmp_path: Path, body: str, state: dict[str, Any]) -> dict[str, Any]:
    step = next(s for s in action()["runs"]["steps"] if "github-script" in s.get("uses", ""))
    (tmp_path / "script.js").write_text(step["with"]["script"], encoding="utf-8")
    (tmp_path / "harness.js").write_text(HARNESS, encoding="utf-8")
    (tmp_path / "body.md").write_text(body, encoding="utf-8")
    (tmp_path / "state.json").write_text(json.dumps(state), encoding="utf-8")
    env = {
        **os.environ,
        "STATE": str(tmp_path / "state.json"),
        "SCRIPT": str(tmp_path / "script.js"),
        "BODY_FILE": str(tmp_path / "body.md"),
        "SET": ".",
    }
    done = subprocess.run(
        ["node", tmp_path / "harness.js"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads((tmp_path / "state.json").read_text(encoding="utf-8"))
    return result


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the comment script")
def test_the_review_is_one_comment_created_then_edited(tmp_path: Path) -> None:
    other = {"id": 1, "issue": 7, "body": "LGTM"}
    elsewhere = {"id": 2, "issue": 8, "body": "<!-- goldcase review: . -->\nanother pull request"}
    state = post(tmp_path, "first push\n", {"comments": [other, elsewhere], "calls": []})
    assert state["calls"] == ["create"]
    state = post(tmp_path, "second push\n", state)
    assert state["calls"] == ["create", "update"]
    assert state["comments"] == [
        other,
        elsewhere,
        {"id": 3, "issue": 7, "body": "<!-- goldcase review: . -->\nsecond push\n"},
    ]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the comment script")
def test_a_comment_longer_than_github_takes_is_cut_and_says_so(tmp_path: Path) -> None:
    state = post(tmp_path, "x" * 70_000, {"comments": [], "calls": []})
    body = state["comments"][0]["body"]
    assert len(body) == 65_536
    assert body.endswith("\n\n(cut here: the whole text is in the job summary)\n")

"""Run the shell blocks of a document as a reader would, against a running local mode.

A block is a fenced ```sh block; a command is one of its lines (joined with the lines a trailing
backslash continues), comments and `# ->` answers left out. The documented addresses are replaced by
the running ones (the API's 8787, the embedded AWS's 4566, the receiver's 9000) and the placeholder
`<the key make run printed>` by the key; nothing else is touched, so a typo in a command fails here.
The result is what the `make run` banner prints for that local mode (a test holds them to it).

Commands run in one bash session, in order, with no AWS configuration in its environment (a fresh
HOME, no AWS_* variables). A command that starts the receiver ("in another terminal") runs in the
background; the session waits until it listens, and after a command that posts an event, until the
receiver has printed a webhook. Each command's output and exit status come back.

`resend_tampered` (a command a test adds after the document's, `python -m tests.support.walkthrough
tamper …`) sends the receiver a copy of the webhook it printed last, its signature headers unchanged
and its body altered, and prints the status the receiver answered.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^\s*```sh\s*$(.*?)^\s*```\s*$", re.S | re.M)
RECEIVER = ".venv/bin/python -m local.receiver"
TAMPER = ".venv/bin/python -m tests.support.walkthrough tamper"
SIGNATURE_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature", "content-type")


class WalkthroughFailed(AssertionError):
    """A documented command failed, or did not lead to what the document says."""


@dataclass(frozen=True)
class Ran:
    command: str
    output: str
    status: int


@dataclass(frozen=True)
class Ports:
    api: int
    aws: int
    receiver: int
    key: str


def blocks(text: str, heading: str) -> list[list[str]]:
    """The commands of each sh block in the section under `heading` (up to the next heading of its level or above,
    outside code: a `# ` line inside a block is a shell comment)."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text[text.index(heading) :].splitlines(keepends=True)
    section, fenced = [lines[0]], False
    for line in lines[1:]:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"^#{{1,{level}}} ", line):
            break
        section.append(line)
    return [commands(body) for body in FENCE.findall("".join(section))]


def commands(block: str) -> list[str]:
    out: list[str] = []
    pending = ""
    for raw in block.splitlines():
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        out.append((pending + line.strip()).strip())
        pending = ""
    return out


def localize(command: str, ports: Ports) -> str:
    return (
        command.replace("<the key make run printed>", ports.key)
        .replace("localhost:8787", f"127.0.0.1:{ports.api}")
        .replace("127.0.0.1:8787", f"127.0.0.1:{ports.api}")
        .replace("127.0.0.1:4566", f"127.0.0.1:{ports.aws}")
        .replace("127.0.0.1:9000", f"127.0.0.1:{ports.receiver}")
        .replace("--port 9000", f"--port {ports.receiver}")
    )


def run(cmds: list[str], ports: Ports, workdir: Path, extra_env: dict[str, str] | None = None, timeout: float = 120) -> list[Ran]:
    """Run `cmds` in one bash session; raises WalkthroughFailed for a command that exits non-zero."""
    receiver_log = workdir / "receiver.log"
    lines = ['cleanup() { [ -n "$RECEIVER_PID" ] && kill $RECEIVER_PID 2>/dev/null; }', "trap cleanup EXIT"]
    for i, cmd in enumerate(cmds):
        local = localize(cmd, ports)
        lines.append(f"echo '@@begin {i}'")
        if local.startswith(RECEIVER):
            command = local.split("   #", 1)[0]
            lines += [
                f"{command} > {receiver_log} 2>&1 & RECEIVER_PID=$!",
                f"for _ in $(seq 100); do grep -q 'receiving webhooks' {receiver_log} 2>/dev/null && break; sleep 0.1; done",
                f"grep -q 'receiving webhooks' {receiver_log}; echo \"@@end {i} $?\"",
            ]
            continue
        lines += [f"{local}", f'echo; echo "@@end {i} $?"']
        if "/v1/events" in local and "-X POST" in local:
            # The webhook reaches the receiver (and is recorded) before the next command reads the event back.
            lines.append(f"for _ in $(seq 100); do grep -q '^--- ' {receiver_log} 2>/dev/null && break; sleep 0.1; done; sleep 0.5")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k not in ("HOOKLINE_URL", "HOOKLINE_KEY", "KEY", "SECRET")}
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    env |= {"HOME": str(home), "PATH": f"{REPO / '.venv' / 'bin'}:{env.get('PATH', '')}", **(extra_env or {})}
    done = subprocess.run(["bash", "-c", "\n".join(lines)], check=False, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    ran = _split(done.stdout, cmds)
    failed = [r for r in ran if r.status != 0]
    if failed or len(ran) != len(cmds):
        raise WalkthroughFailed(f"documented command failed: {failed[0].command if failed else cmds[len(ran)]!r}\n{done.stdout}\n{done.stderr}")
    return ran


def _split(stdout: str, cmds: list[str]) -> list[Ran]:
    ran: list[Ran] = []
    current: list[str] = []
    for line in stdout.splitlines():
        if line.startswith("@@begin "):
            current = []
        elif line.startswith("@@end "):
            index, status = line.split()[1:3]
            ran.append(Ran(cmds[int(index)], "\n".join(current).strip(), int(status)))
        else:
            current.append(line)
    return ran


def receiver_output(workdir: Path) -> str:
    path = workdir / "receiver.log"
    return path.read_text() if path.exists() else ""


def tamper_command(workdir: Path) -> str:
    """The command that resends the last webhook the walk-through's receiver printed, its body altered."""
    return f"{TAMPER} http://127.0.0.1:9000/webhook {workdir / 'receiver.log'}"


def last_webhook(log: str) -> tuple[dict[str, str], object]:
    """The headers and JSON body of the last webhook the receiver printed (local.receiver: a `--- ` line, its
    headers as `name: value`, the body indented, a blank line)."""
    printed = log.rsplit("\n--- ", 1)[-1].split("\n")[1:]
    start = next(i for i, line in enumerate(printed) if line.startswith(("{", "[")))
    headers = dict(line.split(": ", 1) for line in printed[:start])
    end = printed.index("", start) if "" in printed[start:] else len(printed)
    return headers, json.loads("\n".join(printed[start:end]))


def resend_tampered(url: str, log: str) -> int:
    """POST to `url` the last webhook in the receiver's `log` with its signature headers as they came and its body
    changed (the amount, else one field added); the status the receiver answered."""
    headers, body = last_webhook(log)
    if isinstance(body, dict) and isinstance(body.get("data"), dict) and "amount" in body["data"]:
        body["data"]["amount"] = 1
    elif isinstance(body, dict):
        body["tampered"] = True
    else:
        body = {"tampered": body}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={k: headers[k] for k in SIGNATURE_HEADERS if k in headers}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


if __name__ == "__main__":
    if sys.argv[1:2] != ["tamper"] or len(sys.argv) != 4:
        sys.exit("usage: python -m tests.support.walkthrough tamper RECEIVER_URL RECEIVER_LOG")
    print(resend_tampered(sys.argv[2], Path(sys.argv[3]).read_text()))

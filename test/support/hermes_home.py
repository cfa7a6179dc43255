#!/usr/bin/env python3
"""A whole HERMES_HOME as a long-time user's looks: hundreds or thousands of sessions in one state.db.

    python3 test/support/hermes_home.py OUT_DIR --sessions N --seed S [--target-mb M] [--era v30|v31]
                                        [--long-lineage TURNS]

Builds OUT_DIR/state.db through the write paths of hermes_store.py (imported, not copied: every row
goes through its Store / Agent reconstruction of upstream's SessionDB and agent persistence), on
upstream's complete fresh-install schema (create_schema(full=True): every table of
hermes-reference.md §3.2, the external-content FTS5 tables messages_fts and messages_fts_trigram
with their shadow tables, views and insert/update/delete triggers, the display-order triggers,
every index of SCHEMA_SQL and DEFERRED_INDEX_SQL, schema_version). Real SQLite (python's sqlite3)
writes everything, in WAL mode as upstream runs it; the WAL is checkpointed into the .db at the end.

What it holds (each chosen by a seeded PRNG, so one seed gives one file, byte for byte):
  * sessions of every source: cli, telegram, discord, slack, whatsapp, signal, email, cron,
    api_server, and subagent (delegate children); gateway sessions carry user_id, session_key,
    chat_id, chat_type, display_name, origin_json, as the gateway writes them;
  * several providers and models (openrouter, anthropic, openai-codex transports);
  * compression chains (rotation: parent ended end_reason='compression', child published by
    publish_compression_child), in-place compactions (archive_and_compact), both by preflight;
  * delegate subagents (source 'subagent', model_config._delegate_from), /branch forks (parent
    ended 'branched', child model_config._branched_from), gateway resets (parent ended
    'session_reset', child model_config._reset_from on the same session_key), /undo rewinds;
  * session_model_usage rows (main loop per request, 'compression' and 'title' auxiliary calls);
  * rows in the other tables (gateway_routing, gateway_hygiene_state, conversation_generations,
    gateway_heartbeats, compression_locks, session_turn_leases, async_delegations, state_meta);
  * realistic message sizes: tool outputs (file reads, logs, search hits) drawn log-normally and
    steered so the file lands near --target-mb (default 0.15 MB per session: 2,000 sessions ~300 MB);
  * with --long-lineage T (default 500 when N >= 200): one cli compression chain of exactly T turns.

It prints the ground truth as JSON on stdout: per session its id, parent, source, model, lineage
root (the first session of its compression chain), kind (conversation, compression, branch,
delegate, reset), end reason, turns, requests and compactions; the lineages; the schema objects
written; the file's size and the generation time. Tests compare the inspector with this truth.
The CJK FTS variant needs a tokenizer extension that stdlib SQLite lacks and is not written.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hermes_store as hs  # noqa: E402  (beside this file)

SOURCES = [  # (source, weight, gateway platform?)
    ("cli", 34, False), ("telegram", 16, True), ("discord", 11, True), ("slack", 6, True),
    ("whatsapp", 4, True), ("signal", 2, True), ("email", 2, True), ("cron", 14, False),
    ("api_server", 5, False),
]
MODELS = [  # (provider, model, weight)
    ("openrouter", "openai/gpt-5.5", 22), ("openrouter", "anthropic/claude-sonnet-4.6", 16),
    ("openrouter", "google/gemini-3-pro", 8), ("openrouter", "deepseek/deepseek-v3.2", 6),
    ("openrouter", "moonshotai/kimi-k2", 4), ("anthropic", "claude-sonnet-4-6", 18),
    ("anthropic", "claude-opus-4-5", 6), ("openai-codex", "gpt-5.5", 14), ("openai-codex", "gpt-5.5-codex", 6),
]
END_REASONS = {  # how a conversation that was not compacted, branched or reset ends, by source class
    "cli": [("new_session", 5), ("tui_shutdown", 3), ("agent_close", 2), (None, 1)],
    "gateway": [("idle", 5), ("daily", 3), ("agent_close", 1), (None, 2)],
    "cron": [("agent_close", 6), (None, 1)],
    "api_server": [("agent_close", 3), ("ws_disconnect", 1), (None, 1)],
}

WORDS = ("config loader parser invoice ledger retry backoff cache token stream socket queue worker "
         "session schema index migration export import request response handler router client server "
         "build deploy test fixture timeout buffer encoder decoder payload header cursor offset batch "
         "commit branch merge rebase patch diff error warning trace metric counter gauge span event "
         "user account billing payment order refund report summary chart table column value record").split()
PATHS = ["src/app.py", "src/billing/invoice.py", "src/config/load.py", "src/export.py", "src/retry.py",
         "src/api/routes.ts", "src/db/schema.sql", "lib/queue/worker.go", "web/components/Table.tsx",
         "tests/test_billing.py", "docs/ARCHITECTURE.md", "Makefile", "package.json", "README.md"]
ASKS = ["Why does {a} fail when the {b} is empty?", "Add a test for the {a} {b}.", "Refactor the {a} to use a {b}.",
        "Where is the {a} {b} configured?", "Explain how the {a} talks to the {b}.", "Fix the flaky {a} test.",
        "Summarise what changed in the {a} since yesterday.", "Rename {a} to {b} everywhere.",
        "Check the logs for {a} errors.", "Make the {a} {b} faster.", "Draft release notes for the {a} work.",
        "What does {path} do?", "Run the tests for {path}.", "Is the {a} thread-safe?"]
CRON_JOBS = ["Daily digest: summarise unread issues labelled {a}.", "Nightly: run the {a} benchmarks and report regressions.",
             "Every morning: check the {a} {b} dashboards and post anomalies.", "Weekly: list stale branches touching {path}."]


class Text:
    """Deterministic filler text: a pool of code-and-log-like lines, sliced (fast for 300 MB)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        lines = []
        for i in range(6000):
            kind = i % 4
            w = [rng.choice(WORDS) for _ in range(rng.randint(4, 12))]
            if kind == 0:
                lines.append(f"    {w[0]}_{w[1]} = {w[2]}.{w[3]}({', '.join(w[4:7])})")
            elif kind == 1:
                lines.append(f"{rng.choice(PATHS)}:{rng.randint(1, 900)}: {' '.join(w)}")
            elif kind == 2:
                lines.append(f"2026-09-{rng.randint(10, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                             f"{rng.randint(0, 59):02d}Z {rng.choice(['INFO', 'DEBUG', 'WARN', 'ERROR'])} {' '.join(w)}")
            else:
                lines.append(f"def {w[0]}_{w[1]}({w[2]}, {w[3]}):  # {' '.join(w[4:])}")
        self.lines = lines + lines  # wrap-around slices
        self.avg = sum(len(x) + 1 for x in lines) / len(lines)

    def block(self, chars: int) -> str:
        n = max(1, int(chars / self.avg))
        n = min(n, len(self.lines) // 2)
        i = self.rng.randrange(len(self.lines) // 2)
        return "\n".join(self.lines[i:i + n])

    def sentence(self, lo: int = 6, hi: int = 18) -> str:
        w = [self.rng.choice(WORDS) for _ in range(self.rng.randint(lo, hi))]
        return (" ".join(w)).capitalize() + "."

    def fill(self, template: str) -> str:
        return template.format(a=self.rng.choice(WORDS), b=self.rng.choice(WORDS), path=self.rng.choice(PATHS))


def weighted(rng: random.Random, items: List[Tuple[Any, int]]) -> Any:
    total = sum(w for _, w in items)
    x = rng.uniform(0, total)
    for v, w in items:
        x -= w
        if x <= 0:
            return v
    return items[-1][0]


class HomeAgent(hs.Agent):
    """hermes_store's Agent, with build_api_messages' per-row copy memoised: a long session resends every
    row on every request, and copying each again made the generator quadratic in the rows of a list.
    The copy is the same (wire_copy of the row as it is now); it is made again when the row changed."""

    def wire(self) -> List[Dict[str, Any]]:
        cache = self.__dict__.setdefault("_wire_cache", {})
        out = []
        for m in self.messages:
            key = id(m)
            hit = cache.get(key)
            if hit is not None and hit[0] is m and hit[1] is m.get("content") and hit[2] is m.get("api_content"):
                w = hit[3]
            else:
                w = hs.wire_copy(m)
                cache[key] = (m, m.get("content"), m.get("api_content"), w)
            if m is self.current and not isinstance(m.get("api_content"), str):
                live = hs.compose_user_api_content(m.get("content"), self.memory, self.plugin) if self.sim.era != "older" else None
                if live is not None:
                    w = dict(w, content=live)
            out.append(w)
        return out


class Home:
    def __init__(self, out: Path, sessions: int, seed: int, target_mb: float, era: str, long_lineage: int):
        self.out, self.n, self.seed, self.era = out, sessions, seed, era
        self.target_bytes = target_mb * 1e6
        self.long_lineage = long_lineage
        self.sim = hs.Sim(out, "home-%d" % seed, era=era, seed=seed, full_schema=True)
        self.store = self.sim.store
        self.rng = random.Random(seed * 7919 + 17)  # the plan's own stream; the Sim's draws ids
        self.text = Text(random.Random(seed))
        self.conn = self.store.conn
        self.conn.execute("PRAGMA synchronous=OFF")
        self.store.bulk = True
        self.conn.execute("BEGIN")
        self.created = 0
        self.kind_of: Dict[str, str] = {}
        # mean tool-output characters, steered towards the target size from a first guess
        self.tool_mean = max(200.0, 3000.0 * self.target_bytes / sessions / 150e3)
        self.delegations: List[Dict[str, Any]] = []
        self.density = 1.0  # scales turns per conversation and reply lengths when small sessions are asked for
        self.peers: Dict[Tuple[str, str], Dict[str, Any]] = {}

    # --- sizes ------------------------------------------------------------------------------------
    def db_bytes(self) -> int:
        pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
        return pages * self.conn.execute("PRAGMA page_size").fetchone()[0]

    def steer(self) -> None:
        """After each conversation: move the tool-output mean so bytes-per-session tracks the target."""
        if self.created == 0:
            return
        want = self.target_bytes * self.created / self.n
        ratio = min(2.0, max(0.5, want / max(1, self.db_bytes())))
        if self.tool_mean <= 100.0 and ratio < 1 or self.density < 1 and ratio > 1:
            # tool outputs at their floor and still too large: fewer, shorter turns (and back when there is room)
            self.density = min(1.0, max(0.1, self.density * ratio))
        else:
            self.tool_mean = min(200_000.0, max(100.0, self.tool_mean * ratio))

    def tool_chars(self) -> int:
        sigma = 1.1
        mu = math.log(self.tool_mean) - sigma * sigma / 2
        return int(min(120_000, max(40, self.rng.lognormvariate(mu, sigma))))

    # --- one agent ----------------------------------------------------------------------------------
    def new_agent(self, *, source: str, provider: str, model: str, platform: str,
                  parent: Optional[str] = None, model_config: Optional[dict] = None, role: str = "main",
                  kind: str = "conversation") -> hs.Agent:
        a = HomeAgent(self.sim, provider=provider, model=model, source=source, snapshots=False,
                     parent_session_id=parent, model_config=model_config, role=role, platform=platform)
        self.created += 1
        self.kind_of[a.session_id] = kind
        return a

    def gateway_columns(self, a: hs.Agent, peer: Dict[str, Any], title: Optional[str]) -> None:
        cols = {"created_source": a.source, "profile_name": "default", "title": title,
                "title_source": "llm" if title else None}
        if peer:
            cols.update({"user_id": peer["user_id"], "session_key": peer["session_key"], "chat_id": peer["chat_id"],
                         "chat_type": peer["chat_type"], "thread_id": peer.get("thread_id"),
                         "display_name": peer["display_name"], "origin_json": json.dumps(peer["origin"])})
        elif a.source == "cli":
            cols.update({"git_branch": "main", "git_repo_root": "/home/dev/project"})
        sets = ", ".join(f"{k} = ?" for k in cols)
        self.store.write(lambda c: c.execute(f"UPDATE sessions SET {sets} WHERE id = ?", [*cols.values(), a.session_id]))
        if title:
            self.store.record_auxiliary_usage(a.session_id, "title", model="google/gemini-3-flash",
                                              billing_provider="openrouter", input_tokens=180, output_tokens=12)

    def peer(self, source: str) -> Dict[str, Any]:
        """A gateway chat: most users come back to the same chat."""
        known = [p for (s, _), p in self.peers.items() if s == source]
        if known and self.rng.random() < 0.7:
            return self.rng.choice(known)
        chat_type = weighted(self.rng, [("dm", 6), ("group", 3), ("channel", 1)])
        user_id = str(self.rng.randrange(10**8, 10**9))
        chat_id = user_id if chat_type == "dm" else "-100" + str(self.rng.randrange(10**9, 10**10))
        p = {"user_id": user_id, "chat_id": chat_id, "chat_type": chat_type,
             "thread_id": str(self.rng.randrange(1, 999)) if chat_type == "group" and self.rng.random() < 0.3 else None,
             "display_name": self.rng.choice(["Ada", "Linus", "Grace", "Ken", "Barbara", "Dennis", "Margaret"]),
             "session_key": f"agent:main:{source}:{chat_type}:{chat_id}", "generation": 0}
        p["origin"] = {"platform": source, "chat_id": chat_id, "chat_type": chat_type, "user_id": user_id,
                       "user_name": p["display_name"]}
        self.peers[(source, p["session_key"])] = p
        return p

    # --- one turn's responses ----------------------------------------------------------------------
    def tool_call(self) -> Dict[str, Any]:
        k = self.rng.random()
        n = self.tool_chars()
        if k < 0.45:
            path = self.rng.choice(PATHS)
            return hs.call(f"Reading {path}.", "read_file", {"path": path}, json.dumps({"content": self.text.block(n)}))
        if k < 0.8:
            cmd = self.rng.choice(["pytest -q", "npm test", "make build", "git log --oneline -50", "cargo test",
                                   "kubectl logs deploy/api --tail=400", "go test ./..."])
            return hs.call(f"Running {cmd}.", "terminal", {"command": cmd}, self.text.block(n))
        word = self.rng.choice(WORDS)
        return hs.call(f"Searching for {word}.", "terminal", {"command": f"grep -rn {word} src/"}, self.text.block(n))

    def responses(self, calls: int) -> List[Dict[str, Any]]:
        out = [self.tool_call() for _ in range(calls)]
        out.append(hs.say(" ".join(self.text.sentence() for _ in range(self.rng.randint(1, max(1, round(6 * self.density)))))))
        return out

    def injected(self) -> Dict[str, Any]:
        kw: Dict[str, Any] = {}
        if self.rng.random() < 0.35:
            kw["memory"] = "- " + self.text.sentence(4, 10)
        if self.rng.random() < 0.25:
            kw["plugin"] = f"[Repo] branch feat/{self.rng.choice(WORDS)}"
        return kw

    # --- a conversation --------------------------------------------------------------------------------
    def conversation(self, remaining: int, marathon: bool = False, force: Optional[Dict[str, Any]] = None) -> None:
        rng = self.rng
        force = force or {}
        source, _, gateway = weighted(rng, [((s, w, g), w) for s, w, g in SOURCES])
        if marathon:
            source, gateway = "cli", False
        if "source" in force:
            source = force["source"]
            gateway = next(g for s, _, g in SOURCES if s == source)
        provider, model = weighted(rng, [((p, m), w) for p, m, w in MODELS])
        klass = "gateway" if gateway else source if source in ("cli", "cron", "api_server") else "cli"
        if marathon:
            turns = self.long_lineage
        elif source == "cron":
            turns = rng.randint(1, 3)
        else:
            turns = weighted(rng, [((2, 8), 55), ((9, 30), 30), ((31, 90), 12), ((91, 200), 3)])
            turns = max(1, round(rng.randint(*turns) * self.density))
        # how the context is kept bounded, decided up front so the session count is known
        if "turns" in force:
            turns = rng.randint(*force["turns"])
        mode = None
        every = rng.randint(*force.get("every", (22, 45)))
        if turns > every:
            mode = "rotation" if marathon else force.get("mode") or weighted(rng, [("rotation", 6), ("in-place", 4)])
        rotations = (turns - 1) // every if mode == "rotation" else 0
        delegates = force.get("delegates", rng.randint(1, 3) if source != "cron" and rng.random() < 0.12 and turns >= 3 else 0)
        branch_at = rng.randint(2, turns - 1) if klass == "cli" and mode is None and turns >= 4 and (
            force.get("branch") or (not force and rng.random() < 0.08)) else None
        reset = gateway and mode is None and (force.get("reset") or (not force and rng.random() < 0.15))
        undo_at = rng.randint(2, turns - 1) if klass == "cli" and mode is None and branch_at is None \
            and turns >= 4 and (force.get("undo") or (not force and rng.random() < 0.05)) else None
        need = 1 + rotations + delegates + (1 if branch_at else 0) + (1 if reset else 0)
        if need > remaining and not marathon:
            mode, rotations, delegates, branch_at, reset = None, 0, 0, None, False
            turns = min(turns, 20)
        delegates = min(delegates, turns - 1)
        delegate_turns = set(rng.sample(range(1, turns), delegates)) if delegates else set()
        peer = self.peer(source) if gateway else {}
        platform = source if source != "api_server" else "api"
        self.sim.clock.tick(rng.expovariate(1 / 5400.0) + 30)
        a = self.new_agent(source=source, provider=provider, model=model, platform=platform)
        title = None if source == "cron" or rng.random() < 0.1 else f"{self.text.fill('{a} {b}').title()} work"
        self.gateway_columns(a, peer, title)
        gap = 25.0 if klass == "cli" else 140.0
        since = 0
        for t in range(turns):
            if branch_at is not None and t == branch_at:
                a = a.branch()
                self.created += 1
                self.kind_of[a.session_id] = "branch"
                self.gateway_columns(a, peer, (title or "Session") + " (branch)")
            ask = self.text.fill(rng.choice(CRON_JOBS if source == "cron" else ASKS))
            calls = 0 if t == 0 else weighted(rng, [(0, 3), (1, 4), (2, 3), (3, 2), (5, 1)])
            resp = self.responses(calls)
            if t in delegate_turns:
                resp.insert(0, self.delegate_call(a, provider, model, platform))
            kw = self.injected()
            since += 1
            if mode is not None and since > every and t >= 4:
                kw["preflight"] = {"mode": mode, "tail_from": "prev_user",
                                   "summary": "\n".join("- " + self.text.sentence() for _ in range(rng.randint(3, 9)))}
                since = 0
            before = a.session_id
            a.turn(ask, resp, gap=gap + rng.uniform(0, gap), **kw)
            if a.session_id != before:
                self.created += 1
                self.kind_of[a.session_id] = "compression"
            if undo_at is not None and t == undo_at:
                a.undo()
                a.turn(ask + " Actually, keep it simpler.", self.responses(1), reask=True, gap=gap)
        if reset:
            self.sim.clock.tick(3600 * rng.uniform(2, 30))
            self.store.end_session(a.session_id, "session_reset")
            parent = a.session_id
            a = self.new_agent(source=source, provider=provider, model=model, platform=platform, parent=parent,
                               model_config={"max_iterations": 90, "reasoning_config": None, "_reset_from": parent},
                               kind="reset")
            peer["generation"] += 1
            self.gateway_columns(a, peer, title)
            for t in range(rng.randint(1, 5)):
                a.turn(self.text.fill(rng.choice(ASKS)), self.responses(0 if t == 0 else rng.randint(0, 2)),
                       gap=gap + rng.uniform(0, gap), **self.injected())
        self.sim.clock.tick(rng.uniform(5, 600))
        end = weighted(rng, END_REASONS[klass])
        if end is not None:
            self.store.end_session(a.session_id, end)
        self.store.write(lambda c: c.execute("UPDATE sessions SET last_activity_at = ? WHERE id = ?",
                                             (self.sim.clock.now(), a.session_id)))
        if peer:
            self.peers[(source, peer["session_key"])]["last"] = a.session_id
        # nothing of this conversation is needed again: let the live lists go
        self.sim._keep.clear()
        self.sim.role_of.clear()

    def delegate_call(self, parent: hs.Agent, provider: str, model: str, platform: str) -> Dict[str, Any]:
        goal = self.text.fill("Investigate the {a} {b} and report back with file:line references.")

        def run_child() -> str:
            child = self.new_agent(source="subagent", provider=provider, model=model, platform=platform,
                                   parent=parent.session_id, role="sub", kind="delegate",
                                   model_config={"max_iterations": 50, "reasoning_config": None,
                                                 "_delegate_from": parent.session_id})
            child.turn(goal, self.responses(self.rng.randint(1, 4)), gap=0.5)
            summary = self.text.sentence(10, 30)
            self.delegations.append({"id": "deleg_%08x" % self.rng.getrandbits(32), "origin": parent.session_id,
                                     "child": child.session_id, "at": self.sim.clock.now(), "summary": summary})
            return json.dumps({"status": "completed", "summary": summary})

        return hs.call("Delegating the investigation.", "delegate_task", {"goal": goal}, run_child)

    # --- the other tables ------------------------------------------------------------------------------
    def side_tables(self) -> None:
        c = self.conn
        now = self.sim.clock.now()
        for (source, key), p in sorted(self.peers.items()):
            entry = {"session_id": p.get("last"), "platform": source, "chat_id": p["chat_id"], "chat_type": p["chat_type"]}
            c.execute("INSERT INTO gateway_routing (scope, session_key, entry_json, updated_at) VALUES ('', ?, ?, ?)",
                      (key, json.dumps(entry), now))
            c.execute("INSERT INTO gateway_hygiene_state (session_key, failure_streak) VALUES (?, ?)",
                      (key, 1 if self.rng.random() < 0.1 else 0))
            c.execute("INSERT INTO conversation_generations (source, session_key, generation) VALUES (?, ?, ?)",
                      (source, key, p["generation"] + 1))
        for i, profile in enumerate(["default", "work"]):
            c.execute("INSERT INTO gateway_heartbeats (backend_id, pid, started_at, last_heartbeat, profile, host) "
                      "VALUES (?, ?, ?, ?, ?, 'devbox')", (f"gw-{i}", 4100 + i, now - 86400 * 3, now - 30 * i, profile))
        for d in self.delegations[::2]:  # background delegations leave their bookkeeping row
            c.execute("INSERT INTO async_delegations (delegation_id, origin_session, parent_session_id, state, "
                      "dispatched_at, completed_at, updated_at, result_json, delivery_state, delivery_attempts, "
                      "delivered_at, task_json, origin_session_id) VALUES (?, ?, ?, 'completed', ?, ?, ?, ?, "
                      "'delivered', 1, ?, ?, ?)",
                      (d["id"], d["origin"], d["origin"], d["at"] - 20, d["at"], d["at"], json.dumps({"summary": d["summary"]}),
                       d["at"] + 1, json.dumps({"child_session_id": d["child"]}), d["origin"]))
        last = c.execute("SELECT id FROM sessions ORDER BY started_at DESC LIMIT 1").fetchone()[0]
        c.execute("INSERT INTO compression_locks (session_id, holder, acquired_at, expires_at) VALUES (?, 'pid:4100', ?, ?)",
                  (last, now - 900, now - 600))  # a lease its holder never released, long expired
        c.execute("INSERT INTO session_turn_leases (conversation_id, holder, acquired_at, expires_at) VALUES (?, 'pid:4101', ?, ?)",
                  (last, now - 120, now + 180))
        c.execute("INSERT OR REPLACE INTO state_meta (key, value) VALUES ('last_auto_maintenance', ?)", (str(now - 86400),))

    # --- the whole home --------------------------------------------------------------------------------
    def build(self) -> None:
        marathon = self.long_lineage > 0
        # From a dozen sessions on, the first conversations show every case at least once.
        forced = [] if self.n < 12 else [
            {"mode": "rotation", "turns": (30, 45), "every": (10, 14)}, {"mode": "in-place", "turns": (30, 45), "every": (10, 14)},
            {"source": "cli", "turns": (4, 8), "delegates": 2}, {"source": "cli", "turns": (5, 9), "branch": True},
            {"source": "telegram", "turns": (3, 8), "reset": True}, {"source": "cli", "turns": (5, 9), "undo": True},
            {"source": "cron"}, {"source": "discord", "turns": (3, 12), "delegates": 1}]
        while self.created < self.n:
            self.conversation(self.n - self.created, marathon=marathon, force=forced.pop(0) if forced and not marathon else None)
            marathon = False
            self.conn.execute("COMMIT")
            self.steer()
            self.conn.execute("BEGIN")
        self.side_tables()
        self.conn.execute("COMMIT")
        self.store.bulk = False
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # --- the ground truth --------------------------------------------------------------------------------
    def truth(self) -> Dict[str, Any]:
        c = self.conn
        rows = [dict(r) for r in c.execute(
            "SELECT id, parent_session_id, source, model, end_reason, started_at, ended_at, model_config, "
            "message_count, api_call_count FROM sessions ORDER BY started_at, id")]
        by_id = {r["id"]: r for r in rows}
        turns: Dict[str, int] = {}
        compactions: Dict[str, Dict[str, int]] = {}
        for t in self.sim.turns:
            turns[t["sessionId"]] = turns.get(t["sessionId"], 0) + 1
            for k in ("compression", "midTurn"):
                comp = t.get(k)
                if comp and (k == "compression" or comp is not t.get("compression")):
                    d = compactions.setdefault(t["sessionId"], {"rotation": 0, "inPlace": 0})
                    d["rotation" if comp["mode"] == "rotation" else "inPlace"] += 1
        requests: Dict[str, int] = {}
        breaks: Dict[str, List[str]] = {}
        for r in self.sim.requests:
            requests[r["sessionId"]] = requests.get(r["sessionId"], 0) + 1
            # a request that did not extend the previous one of its conversation for a reason other than
            # a compaction or the user's rewind (a sidecar a rewrite dropped): a real cache break
            if r["breakAt"] is not None and r["comparable"] and r["breakCause"] not in ("compression", "rewind"):
                breaks.setdefault(r["sessionId"], []).append(r["breakCause"] or "unknown")
        stored = dict(c.execute("SELECT session_id, COUNT(*) FROM messages GROUP BY session_id").fetchall())

        def root(r: Dict[str, Any]) -> str:
            while self.kind_of[r["id"]] == "compression":
                r = by_id[r["parent_session_id"]]
            return r["id"]

        sessions = []
        for r in rows:
            comp = compactions.get(r["id"], {"rotation": 0, "inPlace": 0})
            sessions.append({"id": r["id"], "parentId": r["parent_session_id"], "source": r["source"], "model": r["model"],
                             "kind": self.kind_of[r["id"]], "lineageRoot": root(r), "endReason": r["end_reason"],
                             "startedAt": r["started_at"], "endedAt": r["ended_at"], "turns": turns.get(r["id"], 0),
                             "requests": requests.get(r["id"], 0), "cacheBreaks": breaks.get(r["id"], []),
                             "compactions": comp["rotation"] + comp["inPlace"],
                             "rotations": comp["rotation"], "inPlaceCompactions": comp["inPlace"],
                             "storedRows": stored.get(r["id"], 0), "messageCount": r["message_count"],
                             "apiCallCount": r["api_call_count"]})
        lineages: Dict[str, Dict[str, Any]] = {}
        for s in sessions:
            lin = lineages.setdefault(s["lineageRoot"], {"id": s["lineageRoot"], "sessions": [], "turns": 0,
                                                         "compactions": 0, "requests": 0})
            lin["sessions"].append(s["id"])
            lin["turns"] += s["turns"]
            lin["compactions"] += s["compactions"]
            lin["requests"] += s["requests"]
        for lin in lineages.values():
            first = by_id[lin["id"]]
            lin["kind"] = self.kind_of[lin["id"]]
            lin["forkedFrom"] = first["parent_session_id"]
            lin["source"] = first["source"]
        schema = {}
        for typ, key in (("table", "tables"), ("index", "indexes"), ("trigger", "triggers"), ("view", "views")):
            schema[key] = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = ? ORDER BY name", (typ,))]
        schema["virtualTables"] = [r[0] for r in c.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")]
        schema["shadowTables"] = [t for t in schema["tables"] if t not in schema["virtualTables"]
                                  and any(t.startswith(v + "_") for v in schema["virtualTables"])]
        schema["schemaVersion"] = c.execute("SELECT version FROM schema_version").fetchone()[0]
        longest = max(lineages.values(), key=lambda l: (l["turns"], l["id"]))
        counts = {t: c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in
                  ("sessions", "messages", "session_model_usage", "system_prompts", "gateway_routing",
                   "conversation_generations", "async_delegations")}
        return {"seed": self.seed, "era": self.era, "stateDb": "state.db", "sessionsRequested": self.n,
                "rowCounts": counts, "schema": schema, "sessions": sessions,
                "lineages": sorted(lineages.values(), key=lambda l: (by_id[l["id"]]["started_at"], l["id"])),
                "longestLineage": {"id": longest["id"], "turns": longest["turns"], "sessions": longest["sessions"]}}


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--sessions", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target-mb", type=float, default=None, help="aim for this file size (default 0.15 MB per session)")
    ap.add_argument("--era", choices=["v30", "v31"], default="v30")
    ap.add_argument("--long-lineage", type=int, default=None,
                    help="turns of one long cli compression chain (default 500 from 200 sessions on, else none)")
    args = ap.parse_args(argv[1:])
    if args.sessions < 1:
        ap.error("--sessions must be at least 1")
    out = Path(args.out)
    if (out / "state.db").exists():
        print(f"{out / 'state.db'} exists; give an empty directory", file=sys.stderr)
        return 2
    long_lineage = args.long_lineage if args.long_lineage is not None else (500 if args.sessions >= 200 else 0)
    target = args.target_mb if args.target_mb is not None else 0.15 * args.sessions
    t0 = time.monotonic()
    home = Home(out, args.sessions, args.seed, target, args.era, long_lineage)
    home.build()
    truth = home.truth()
    home.store.close()
    sessions_dir = out / "sessions"
    if sessions_dir.is_dir() and not any(sessions_dir.iterdir()):
        sessions_dir.rmdir()  # no snapshots are written: only state.db
    truth["bytes"] = (out / "state.db").stat().st_size
    truth["generationSeconds"] = round(time.monotonic() - t0, 2)
    json.dump(truth, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

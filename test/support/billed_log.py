"""The agent.log of a hermes_store.py simulation, written on the simulation's own clock.

hermes_store.py turns it on for a scenario (`Sim.log = BilledLog(sim, ...)`, the `billed` scenario);
off, nothing here runs and no scenario's output changes. It reuses agent_log.py's setup (upstream's
setup_logging: RotatingFileHandler on HOME/logs/agent.log, backupCount 3, behind a QueueHandler /
QueueListener pair, the record format with the thread-local session tag) and its line writers (the
exact format strings of each line kind), and adds:

* the time: every record's `created` is the simulation clock's time (to the millisecond), and the
  process's local zone is Asia/Kolkata (+05:30), because upstream's asctime is local time without a
  zone while state.db's timestamps are epoch seconds: a reader must find the offset itself;
* a small maxBytes, so the handler rolls agent.log over to agent.log.1 where the scenario puts a burst
  of other loggers' lines;
* the provider's prompt cache, as far as the usage a call reports depends on it (`ProviderCache`);
* the truth of every `API call #N` line: the file it ends up in, its line there, its fields, and the
  index of the request it answers (null for a call of a session state.db does not hold).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
import string
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import agent_log  # noqa: E402

# ---------------------------------------------------------------------------------------------
# The provider's prompt cache (Anthropic's rules, as its prompt-caching documentation states them;
# OpenAI's automatic caching has the same shape with its own minimum).

# How long an idle prefix lives: Anthropic's default, or an hour where the home's config asks for it
# (prompt_caching.cache_ttl: 1h puts ttl 1h on every marker); a scenario sets BilledLog.cache_ttl.
CACHE_TTL_SECONDS = 300.0
LOG_TIMEZONE = "Asia/Kolkata"
# A fixed thread ident for the failed-attempt lines (_client_log_context prints the thread's), so the
# log is the same bytes on every run.
MAIN_THREAD_IDENT = 139872046360384


# agent/usage_pricing.py's official-docs snapshot for the models the billed scenario runs
# (shared/design/hermes-usage.md §3.3): input, output, cache read, cache write, USD per million tokens.
HERMES_RATES = {"claude-sonnet-4-6": (3.0, 15.0, 0.3, 3.75), "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25)}


def hermes_estimate(model: str, *, uncached: int, output: int, cache_read: int, cache_write: int) -> float:
    """estimate_usage_cost on one call's normalised usage: absolute rates per bucket (these prompts are
    far below any context tier). What record_response_usage queues as the call's estimated_cost_usd."""
    i, o, r, w = HERMES_RATES[model]
    return (uncached * i + output * o + cache_read * r + cache_write * w) / 1e6


def min_cacheable_tokens(model: str) -> int:
    """The shortest prompt prefix the provider caches: Claude Opus 4.5/4.6 and Haiku 4.5 4096,
    other Claude models (Sonnet) 1024; OpenAI gpt-* 1024."""
    m = model.lower().replace(".", "-")
    if any(k in m for k in ("opus-4-5", "opus-4-6", "haiku-4-5")):
        return 4096
    return 1024


class ProviderCache:
    """What the provider's cache serves a call, and why it served less than the previous prompt.

    A call reads the previous completed call's whole prompt when its wire extends that call's wire
    (same system prompt, the earlier messages unchanged), the idle gap since that call's response is
    within the TTL, and that prompt was long enough to be cached. At a break it reads only the prefix
    before the first differing wire message (the JSON of that prefix sent alone, // 4, the simulation's
    token arithmetic), when that prefix is itself long enough; a system prompt that changed leaves no
    prefix. After a gap beyond the TTL it reads nothing, and nothing when the provider drops its cache
    for no visible reason (a scenario's knob). Anthropic usage: what is not read is written, when the
    prompt is long enough to be cached at all."""

    def __init__(self, ttl: float = CACHE_TTL_SECONDS) -> None:
        self.ttl = ttl

    def serve(self, prev: Optional[Dict[str, Any]], *, model: str, system: str, wire: List[Dict[str, Any]],
              prompt: int, now: float, dropped: bool, prefix_tokens) -> Dict[str, Any]:
        minimum = min_cacheable_tokens(model)
        info: Dict[str, Any] = {"read": 0, "write": 0, "reasons": [], "gapSeconds": None, "previousPrompt": None,
                                "minCacheable": minimum, "sharedPrefix": None}
        if prev is None or prev["model"] != model:
            info["reasons"] = ["first"]
        else:
            gap = now - prev["at"]
            info["gapSeconds"] = round(gap, 3)
            info["previousPrompt"] = prev["input"]
            n = len(prev["wire"])
            same_system = prev["system"] == system
            extends = same_system and wire[:n] == prev["wire"]
            reasons = []
            if gap > self.ttl:
                reasons.append("expired")
            if prev["input"] < minimum:
                reasons.append("too-short")
            if not extends:
                reasons.append("break")
            if dropped:
                reasons.append("dropped")
            info["reasons"] = reasons
            if not reasons:
                info["read"] = min(prev["input"], prompt)
            elif reasons == ["break"]:
                if same_system:
                    shared = next((i for i, m in enumerate(prev["wire"]) if i >= len(wire) or wire[i] != m), n)
                    tokens = min(prefix_tokens(wire[:shared]), prev["input"], prompt)
                    info["sharedPrefix"] = {"wireMessages": shared, "tokens": tokens}
                    info["read"] = tokens if tokens >= minimum else 0
                else:
                    info["sharedPrefix"] = {"wireMessages": 0, "tokens": 0}
        info["write"] = prompt - info["read"] if prompt >= minimum else 0
        return info

    @staticmethod
    def miss_class(info: Dict[str, Any], cause_logged: bool) -> Optional[str]:
        """The class of a call that read less than the previous call's whole prompt, by the reason the
        provider used, checked in this order: cause-logged, expired, too-short, predicted, unexplained.
        None when it read the whole previous prompt, or for a lineage's first call."""
        reasons = info["reasons"]
        if not reasons or reasons == ["first"]:
            return None
        if cause_logged:
            return "cause-logged"
        for reason, cls in (("expired", "expired"), ("too-short", "too-short"), ("break", "predicted"),
                            ("dropped", "unexplained")):
            if reason in reasons:
                return cls
        return None


# ---------------------------------------------------------------------------------------------
# The preflight figure: what _preflight_request_tokens (agent/turn_context.py) returns, rebuilt here in
# our own Python from the rules docs/hermes-behaviour.md §2.3 (V3 rough estimators) and
# ../shared/design/hermes-usage.md §4 (the anchored estimator) state. It is the oracle of the
# TypeScript port: it prices the rows as the agent holds them in memory (the simulation's live
# dicts, every key they carry) with Python's own str(), never through the inspector's code.

# docs/hermes-behaviour.md §2.3: fields that describe the durable record, never sent
PERSISTENCE_ONLY_MESSAGE_FIELDS = frozenset({
    "timestamp", "display_kind", "display_metadata", "_row_id", "_merged_turn_prefix", "message_uid",
    "_absorbed_message_uids", "_tool_call_uids", "_tool_call_uid", "_db_row_snapshot", "_canonical_row"})
IMAGE_PART_TYPES = ("image", "image_url", "input_image")
DEFAULT_IMAGE_TOKEN_COST = 1500
CHARS_PER_TOKEN = 4
# Token-dense code points, one token each: Hangul Jamo, CJK radicals to the end of the unified
# ideographs (Kana and CJK punctuation included), Hangul Jamo Extended-A, Hangul syllables, CJK
# compatibility ideographs, halfwidth and fullwidth forms.
_DENSE_RANGES = ((0x1100, 0x11FF), (0x2E80, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
                 (0xFF00, 0xFFEF))


def _dense(ch: str) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _DENSE_RANGES)


def estimate_tokens_rough_v3(text: Any) -> int:
    """One token per CJK/Hangul/fullwidth code point, plus (UTF-8 bytes of the rest + 3) // 4."""
    if not text:
        return 0
    text = str(text)
    dense = sum(1 for ch in text if _dense(ch))
    rest = "".join(ch for ch in text if not _dense(ch))
    return dense + (len(rest.encode("utf-8", "replace")) + 3) // CHARS_PER_TOKEN


def wire_shadow_v3(row: Dict[str, Any]) -> Dict[str, Any]:
    """The row as the provider receives it, for pricing: a non-empty string api_content on a user or
    assistant row stands in for content (as key `content`, where api_content sat; any other api_content is
    dropped); persistence-only fields, reasoning_details and _anthropic_content_blocks dropped; reasoning
    dropped beside a reasoning_content; image parts reduced to a placeholder (priced flat);
    encrypted_content blanked."""
    api = row.get("api_content")
    api_wins = isinstance(api, str) and bool(api) and row.get("role") in ("user", "assistant")
    rc = row.get("reasoning_content")
    drop_reasoning = isinstance(rc, str) and bool(rc.strip())
    out: Dict[str, Any] = {}
    for k, v in row.items():
        if k in PERSISTENCE_ONLY_MESSAGE_FIELDS or k in ("reasoning_details", "_anthropic_content_blocks"):
            continue
        if k == "reasoning" and drop_reasoning:
            continue
        if k == "api_content":
            if api_wins:
                out["content"] = v
            continue
        if k == "content" and api_wins:
            continue
        if k in ("content", "output") and isinstance(v, list):
            out[k] = [{"type": p.get("type"), "image": "[stripped]"}
                      if isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES else p for p in v]
        elif k == "content" and isinstance(v, dict) and v.get("_multimodal"):
            out[k] = v.get("text_summary", "")
        elif k == "encrypted_content":
            out[k] = ""
        else:
            out[k] = v
    return out


def _image_parts(row: Dict[str, Any]) -> int:
    def count(parts: Any, types) -> int:
        return sum(1 for p in parts if isinstance(p, dict) and p.get("type") in types) if isinstance(parts, list) else 0
    content = row.get("content")
    n = count(content, IMAGE_PART_TYPES) + count(row.get("_anthropic_content_blocks"), ("image",))
    if isinstance(content, dict) and content.get("_multimodal"):
        n += count(content.get("content"), ("image", "image_url"))
    return n + count(row.get("output"), IMAGE_PART_TYPES)


def estimate_messages_tokens_rough_v3(rows: List[Dict[str, Any]]) -> int:
    """Each row apart: the rough estimate of str(its wire shadow) (Python's repr), plus 1500 per image part."""
    return sum(estimate_tokens_rough_v3(str(wire_shadow_v3(r))) + DEFAULT_IMAGE_TOKEN_COST * _image_parts(r)
               for r in rows)


def estimate_tools_tokens_rough_v3(tools: Optional[List[Dict[str, Any]]]) -> int:
    """(Σ len(name) + len(description) + len(compact JSON of parameters) + 3) // 4 over the OpenAI-format schemas."""
    total = 0
    for tool in tools or []:
        fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        total += sum(len(v) for v in (fn.get("name") or "", fn.get("description") or "") if isinstance(v, str))
        total += len(json.dumps(fn.get("parameters") or {}, ensure_ascii=False, separators=(",", ":")))
    return (total + 3) // 4 if tools else 0


def estimate_request_tokens_rough_v3(rows: List[Dict[str, Any]], system: str,
                                     tools: Optional[List[Dict[str, Any]]]) -> int:
    """The whole request: system prompt + rows + tool schemas."""
    return (estimate_tokens_rough_v3(system) + estimate_messages_tokens_rough_v3(rows)
            + estimate_tools_tokens_rough_v3(tools))


FINGERPRINT_FIELDS = ("role", "content", "api_content", "tool_call_id", "tool_calls")


def message_fingerprint(row: Dict[str, Any]) -> str:
    """sha256 of the compact sorted-key JSON of the fields that reach the provider (those not None)."""
    fields = {k: row[k] for k in FINGERPRINT_FIELDS if row.get(k) is not None}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                                     default=str).encode("utf-8")).hexdigest()


def _prefix_fingerprint(rows: List[Dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps([(r.get("role"), message_fingerprint(r)) for r in rows],
                                     separators=(",", ":")).encode("utf-8")).hexdigest()


def capture_usage_anchor(prompt_tokens: int, completion_tokens: int, rows: List[Dict[str, Any]],
                         request: Optional[int]) -> Optional[Dict[str, Any]]:
    """capture_usage_anchor: the billed figures of a completed response and the list it priced (the live
    list the call was sent with, before its reply was appended), fingerprinted now, while the dicts are as
    sent. `request`: the truth's index of that call (ours, not upstream's)."""
    if prompt_tokens is None or prompt_tokens <= 0 or not rows:
        return None
    last = rows[-1]
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens or 0, "base_count": len(rows),
            "base_last_role": last.get("role"), "base_last_fp": message_fingerprint(last),
            "base_prefix_fp": _prefix_fingerprint(rows), "request": request}


def anchored_context_tokens(rows: List[Dict[str, Any]], anchor: Optional[Dict[str, Any]]) -> Optional[int]:
    """prompt + completion + the rough estimate of the rows added since (the first dropped when it is the
    anchored call's own assistant reply); None when the priced prefix no longer fingerprints the same."""
    if not anchor:
        return None
    n = anchor["base_count"]
    if n <= 0 or len(rows) < n:
        return None
    last = rows[n - 1]
    if last.get("role") != anchor["base_last_role"] or message_fingerprint(last) != anchor["base_last_fp"]:
        return None
    if _prefix_fingerprint(rows[:n]) != anchor["base_prefix_fp"]:
        return None
    delta = rows[n:]
    if delta and delta[0].get("role") == "assistant":
        delta = delta[1:]
    return anchor["prompt_tokens"] + anchor["completion_tokens"] + estimate_messages_tokens_rough_v3(delta)


def preflight_request_tokens(rows: List[Dict[str, Any]], system: str, tools: Optional[List[Dict[str, Any]]],
                             anchor: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """_preflight_request_tokens: the anchored figure when the anchor holds, else the rough request estimate."""
    anchored = anchored_context_tokens(rows, anchor)
    if anchored is not None:
        return {"method": "anchored", "tokens": anchored}
    return {"method": "rough", "tokens": estimate_request_tokens_rough_v3(rows, system, tools)}


# ---------------------------------------------------------------------------------------------
# The log

CALL_HEADER = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO(?: \[([^\]]+)\])? agent\.conversation_loop: "
                         r"API call #(\d+): ")


class BilledLog:
    def __init__(self, sim: Any, max_bytes: int):
        os.environ["TZ"] = LOG_TIMEZONE
        time.tzset()
        self.sim = sim
        self.clock = sim.clock
        self.logs_dir = Path(sim.out) / "logs"
        self.listener = agent_log.setup(str(sim.out), 5, max_bytes=max_bytes)
        self.max_bytes = max_bytes
        previous = logging.getLogRecordFactory()

        def factory(*args, **kwargs):
            record = previous(*args, **kwargs)
            ms = int(round(self.clock.now() * 1000))
            record.created = ms / 1000.0
            record.msecs = float(ms % 1000)
            return record

        logging.setLogRecordFactory(factory)
        self.cache = ProviderCache(getattr(sim, "cache_ttl", CACHE_TTL_SECONDS))
        self.rng = random.Random(20260918)
        self.calls: List[Dict[str, Any]] = []
        self._logged: List[Dict[str, Any]] = []  # agent_log's truth entry of each call (its asctime)
        self.finished = False

    # --- session context ---------------------------------------------------------------------
    def set_session(self, session_id: Optional[str]) -> None:
        agent_log.set_session_context(session_id)

    def turn_start(self, agent: Any, history: int, message: str, platform: str = "cli") -> None:
        """set_session_context at the turn's start, then build_turn_context's turn line."""
        self.set_session(agent.session_id)
        agent_log.turn(agent, platform, history, message)

    def stored_prompt_null(self, agent: Any) -> None:
        """_restore_or_build_system_prompt: the stored prompt is NULL and the history is not empty."""
        agent_log.log(agent_log.LOOP, logging.WARNING, None,
                      "Stored system prompt for session %s is %s; rebuilding from scratch this turn. Prefix cache will miss "
                      "until the rebuild persists. Investigate the previous turn's update_system_prompt write path.",
                      agent.session_id, "null")

    # --- the preflight figure ------------------------------------------------------------------
    @staticmethod
    def capture_anchor(prompt: int, output: int, rows: List[Dict[str, Any]],
                       request: Optional[int]) -> Optional[Dict[str, Any]]:
        return capture_usage_anchor(prompt, output, rows, request)

    @staticmethod
    def preflight_figure(agent: Any, rows: List[Dict[str, Any]]) -> Dict[str, Any]:
        """_preflight_request_tokens for the agent's live list, with what the truth says of it."""
        anchor = getattr(agent, "usage_anchor", None)
        out = preflight_request_tokens(rows, agent.system_prompt, agent.tools, anchor)
        anchored = out["method"] == "anchored"
        out.update(anchorRequest=anchor["request"] if anchored else None,
                   anchorInput=anchor["prompt_tokens"] if anchored else None,
                   anchorOutput=anchor["completion_tokens"] if anchored else None,
                   messagesRough=estimate_messages_tokens_rough_v3(rows), messages=len(rows))
        return out

    @staticmethod
    def request_rough(agent: Any, rows: List[Dict[str, Any]]) -> int:
        return estimate_request_tokens_rough_v3(rows, agent.system_prompt, agent.tools)

    def preflight(self, agent: Any, tokens: int, threshold: int, context_length: int = 200000) -> None:
        agent_log.preflight(agent, tokens, threshold, context_length)

    def compaction_started(self, agent: Any, messages: int, tokens: int) -> None:
        agent_log.compaction_started(agent, messages, tokens)

    def compaction_done(self, agent: Any, before: int, after: int, tokens: int) -> None:
        agent_log.compaction_done(agent, before, after, tokens)

    def failed_attempt(self, agent: Any, attempt: int, of: int, retryable: bool, error_type: str, summary: str) -> None:
        agent_log.failed_attempt(agent, attempt, of, retryable, error_type, summary, thread_ident=MAIN_THREAD_IDENT)

    def retries_exhausted(self, agent: Any, retries: int, summary: str, msgs: int, tokens: int) -> None:
        agent_log.retries_exhausted(agent, "", retries, summary, msgs, tokens)

    def filler(self, kib: int) -> None:
        """Other loggers' lines (tool progress): what fills a real agent.log between call lines."""
        agent_log.filler(kib)

    def response_id(self) -> str:
        return "msg_01" + "".join(self.rng.choice(string.ascii_letters + string.digits) for _ in range(22))

    # --- the call line -------------------------------------------------------------------------
    def call(self, agent: Any, request: Optional[int], *, prompt: Optional[int], output: int = 0, cache_read: int = 0,
             cache_write: int = 0, latency: float = 1.0) -> int:
        """record_response_usage's line, in the agent's layout (A older, B #104568 on, C provider-first)."""
        layout = getattr(agent, "log_layout", "B")
        rid = self.response_id() if layout == "B" and prompt is not None else None
        agent_log.call(agent, layout, prompt=prompt, output=output, latency=latency, cache_read=cache_read,
                       cache_write=cache_write, rid=rid)
        self._logged.append(agent_log.truth[-1])
        unavailable = prompt is None
        cache_reported = not unavailable and cache_read > 0 and prompt > 0
        write_reported = not unavailable and layout == "B" and cache_write > 0
        self.calls.append({
            "file": None, "line": None, "sessionTag": getattr(agent_log._session_context, "session_id", None) or None,
            "n": agent.session_api_calls, "model": agent.model, "layout": {"A": "model-first", "B": "model-first", "C": "provider-first"}[layout],
            "version": {"A": "before #104568", "B": "#104568", "C": "provider-first"}[layout],
            # what the line says (a suffix not printed reads 0), as the reader should read it
            "input": prompt, "output": None if unavailable else output,
            "cacheRead": cache_read if cache_reported else 0, "cacheWrite": cache_write if write_reported else 0,
            "cacheReported": cache_reported, "writeReported": write_reported, "usageUnavailable": unavailable,
            # what the provider really counted (a layout without write= still wrote): null without usage
            "providerCacheRead": None if unavailable else cache_read,
            "providerCacheWrite": None if unavailable else cache_write,
            "latency": latency, "responseId": rid,
            "time": int(round(self.clock.now() * 1000)) / 1000.0, "asctime": None, "request": request,
        })
        return len(self.calls) - 1

    # --- the end --------------------------------------------------------------------------------
    def finish(self, rolled_over: bool = True) -> None:
        """Stops the listener (every record written), then finds each call line in the files it ended in
        (after exactly one rollover, or none)."""
        if self.finished:
            return
        self.finished = True
        self.listener.stop()
        for h in self.listener.handlers:
            h.close()
        root = logging.getLogger()
        for h in list(root.handlers):
            if isinstance(h, agent_log.QueueHandler):
                root.removeHandler(h)
        names = [f"agent.log.{i}" for i in (3, 2, 1)] + ["agent.log"]
        present = [n for n in names if (self.logs_dir / n).exists()]
        expected = ["agent.log.1", "agent.log"] if rolled_over else ["agent.log"]
        assert present == expected, f"the log must roll over {'exactly once' if rolled_over else 'never'}, found {present}"
        k = 0
        for name in present:
            with open(self.logs_dir / name, encoding="utf-8") as f:
                for number, text in enumerate(f, start=1):
                    m = CALL_HEADER.match(text)
                    if not m:
                        continue
                    c = self.calls[k]
                    assert (m.group(1), int(m.group(2))) == (c["sessionTag"], c["n"]), f"call line {k} is not {c}: {text}"
                    c["file"], c["line"] = f"logs/{name}", number
                    k += 1
        assert k == len(self.calls), f"{len(self.calls)} calls logged, {k} found in the files"
        for c, logged in zip(self.calls, self._logged):
            c["asctime"] = logged["asctime"]

    def offset_seconds(self) -> int:
        return int(time.localtime(self.clock.now()).tm_gmtoff)

    def truth(self) -> Dict[str, Any]:
        self.finish()
        return {"logs": [f"logs/{n}" for n in ("agent.log.1", "agent.log")], "logTimezone": LOG_TIMEZONE,
                "logTimezoneOffsetSeconds": self.offset_seconds(), "logMaxBytes": self.max_bytes, "calls": self.calls}

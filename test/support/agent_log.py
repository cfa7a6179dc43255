"""An agent.log written the way upstream Hermes writes it, for test/transcripts/agentLog*.test.ts.

    python3 test/support/agent_log.py HOME PART [--max-mb N]

Sets up logging as upstream's hermes_logging.setup_logging does (hermes_logging.py @ 00067189):
a RotatingFileHandler on HOME/logs/agent.log with maxBytes = max_size_mb MiB (config
`logging.max_size_mb`, default 5) and backupCount 3, encoding utf-8, behind one QueueHandler /
QueueListener pair; the record format "%(asctime)s %(levelname)s%(session_tag)s %(name)s: %(message)s"
with no datefmt (RedactingFormatter(_LOG_FORMAT): Python's default asctime, local time); a record
factory giving every record ` [<session_id>]` from a thread-local session context, or "". Upstream's
formatter also redacts secrets, which these lines do not hold, so a plain Formatter subclass stands
in for it; it only notes each record's asctime for the truth.

The lines are logged with the loggers, levels and format strings of the upstream code that writes
them (named beside each), through logging's own %-formatting. PART is:
    small   one short turn of each kind, no filler (a log small enough to split at every byte)
    first   two turns of session A; the second compacts by rotation, so the session tag switches to
            the child mid-turn, and about 1.1 MB of other loggers' lines before that switch make the
            handler roll agent.log over to agent.log.1 in the middle of the turn; then the other
            call-line layouts, retries, preflight decisions, a traceback, a record from an untagged
            thread
    second  a new process on the child session (the call counter starts again at 1), with enough
            lines to roll over once more (agent.log -> agent.log.1 -> agent.log.2)

Prints the truth as JSON: every record the inspector should type, in the order written, with the
field values it should read (and `asctime` as the formatter wrote it).
"""
import json
import logging
import os
import queue
import sys
import threading
from logging.handlers import QueueHandler, QueueListener, RotatingFileHandler

LOG_FORMAT = '%(asctime)s %(levelname)s%(session_tag)s %(name)s: %(message)s'

_session_context = threading.local()
truth = []


def set_session_context(session_id):
    _session_context.session_id = session_id


def clear_session_context():
    _session_context.session_id = None


def install_record_factory():
    previous = logging.getLogRecordFactory()

    def factory(*args, **kwargs):
        record = previous(*args, **kwargs)
        sid = getattr(_session_context, 'session_id', None)
        record.session_tag = f' [{sid}]' if sid else ''
        return record

    logging.setLogRecordFactory(factory)


class NotingFormatter(logging.Formatter):
    def format(self, record):
        text = super().format(record)
        index = getattr(record, 'truth_index', None)
        if index is not None:
            truth[index]['asctime'] = record.asctime
        return text


class NonFormattingQueueHandler(QueueHandler):
    # As upstream's: the record goes to the listener unformatted (exc_info kept), a shallow copy.
    def prepare(self, record):
        import copy
        return copy.copy(record)


def setup(home, max_mb, max_bytes=None):
    """setup_logging's file handler behind its queue; max_bytes (a test's small size) overrides max_mb MiB."""
    logs = os.path.join(home, 'logs')
    os.makedirs(logs, exist_ok=True)
    install_record_factory()
    size = max_mb * 1024 * 1024 if max_bytes is None else max_bytes
    handler = RotatingFileHandler(os.path.join(logs, 'agent.log'), maxBytes=size, backupCount=3, encoding='utf-8')
    handler.setLevel(logging.INFO)
    handler.setFormatter(NotingFormatter(LOG_FORMAT))
    q = queue.SimpleQueue()
    logging.getLogger().addHandler(NonFormattingQueueHandler(q))
    logging.getLogger().setLevel(logging.INFO)
    listener = QueueListener(q, handler, respect_handler_level=True)
    listener.start()
    return listener


def log(logger, level, expected, fmt, *args, exc_info=None):
    """Logs fmt % args; `expected` (a dict, or None for a line of no kind) joins the truth."""
    extra = None
    if expected is not None:
        expected['sessionTag'] = getattr(_session_context, 'session_id', None) or None
        expected['level'] = logging.getLevelName(level)
        expected['logger'] = logger
        truth.append(expected)
        extra = {'truth_index': len(truth) - 1}
    logging.getLogger(logger).log(level, fmt, *args, extra=extra, exc_info=exc_info)


LOOP = 'agent.conversation_loop'


class Agent:
    def __init__(self, session_id, model, provider, base_url):
        self.session_id, self.model, self.provider, self.base_url = session_id, model, provider, base_url
        self.session_api_calls = 0


def call(agent, layout, prompt=None, output=0, latency=1.0, cache_read=0, cache_write=0, rid=None, upstream=None):
    """agent/turn_usage.py record_response_usage: A (@ 049462aa), B (#104568, fbc4ea8b96), C (@ 36c0a29a)."""
    agent.session_api_calls += 1
    n = agent.session_api_calls
    latency_printed = float('%.1f' % latency)
    expected = {
        'kind': 'call', 'n': n, 'layout': 'provider-first' if layout == 'C' else 'model-first',
        'model': agent.model, 'provider': agent.provider or 'unknown', 'baseUrl': (agent.base_url or 'unknown') if layout == 'C' else None,
        'latencySeconds': latency_printed, 'usageUnavailable': prompt is None,
        'input': prompt, 'output': None if prompt is None else output, 'total': None if prompt is None else prompt + output,
        'cacheRead': 0, 'cacheReported': False, 'cachePercent': None, 'cacheWrite': 0, 'writeReported': False,
        'responseId': None, 'upstream': None,
    }
    route = f'provider={agent.provider or "unknown"} base_url={agent.base_url or "unknown"} model={agent.model or "unknown"}'
    if prompt is None:
        if layout == 'C':
            log(LOOP, logging.INFO, expected, 'API call #%d: %s in=? out=? total=? latency=%.1fs usage=unavailable', n, route, latency)
        else:
            log(LOOP, logging.INFO, expected, 'API call #%d: model=%s provider=%s in=? out=? total=? latency=%.1fs usage=unavailable',
                n, agent.model, agent.provider or 'unknown', latency)
        return
    suffix = ''
    if cache_read and prompt:
        suffix = f' cache={cache_read}/{prompt} ({100 * cache_read / prompt:.0f}%)'
        expected.update(cacheRead=cache_read, cacheReported=True, cachePercent=int(f'{100 * cache_read / prompt:.0f}'))
    if layout == 'B':
        if cache_write:
            suffix += f' write={cache_write}'
            expected.update(cacheWrite=cache_write, writeReported=True)
        ident = f' id={rid}' if isinstance(rid, str) and rid else ''
        if isinstance(upstream, str) and upstream:
            ident += f' upstream={upstream}'
        expected.update(responseId=rid or None, upstream=upstream or None)
        log(LOOP, logging.INFO, expected, 'API call #%d: model=%s provider=%s in=%d out=%d total=%d latency=%.1fs%s%s',
            n, agent.model, agent.provider or 'unknown', prompt, output, prompt + output, latency, suffix, ident)
    elif layout == 'A':
        log(LOOP, logging.INFO, expected, 'API call #%d: model=%s provider=%s in=%d out=%d total=%d latency=%.1fs%s',
            n, agent.model, agent.provider or 'unknown', prompt, output, prompt + output, latency, suffix)
    else:
        log(LOOP, logging.INFO, expected, 'API call #%d: %s in=%d out=%d total=%d latency=%.1fs%s', n, route, prompt, output, prompt + output, latency, suffix)


def turn(agent, platform, history, message):
    """agent/turn_context.py (id 69537818223): the turn-start line."""
    preview = (message[:80] + '...') if len(message) > 80 else message
    preview = preview.replace('\n', ' ')
    log('agent.turn_context', logging.INFO,
        {'kind': 'turn', 'sessionId': agent.session_id, 'model': agent.model, 'provider': agent.provider, 'platform': platform, 'history': history, 'message': repr(preview)},
        'conversation turn: session=%s model=%s provider=%s platform=%s history=%d msg=%r',
        agent.session_id or 'none', agent.model, agent.provider or 'unknown', platform, history, preview)


def restore_lines(agent):
    """agent/conversation_loop.py _restore_or_build_system_prompt (@ 73e5b5db) and _persist_system_prompt."""
    log(LOOP, logging.WARNING, {'kind': 'cause', 'cause': 'stored-prompt-null', 'sessionId': agent.session_id, 'detail': None},
        "Stored system prompt for session %s is %s; rebuilding from scratch this turn. Prefix cache will miss until the rebuild persists. "
        "Investigate the previous turn's update_system_prompt write path.", agent.session_id, 'null')
    log(LOOP, logging.INFO, {'kind': 'cause', 'cause': 'stored-prompt-stale', 'sessionId': agent.session_id, 'detail': f'model={agent.model} provider={agent.provider}'},
        'Stored system prompt for session %s has stale runtime identity; rebuilding for model=%s provider=%s.', agent.session_id, agent.model, agent.provider)
    err = 'database is locked'
    log(LOOP, logging.WARNING, {'kind': 'cause', 'cause': 'restore-failed', 'sessionId': agent.session_id, 'detail': err},
        'Session DB get_session failed for system-prompt restore (session=%s): %s. Falling back to fresh build — prefix cache will miss for this turn.',
        agent.session_id, err)
    log(LOOP, logging.WARNING, {'kind': 'cause', 'cause': 'persist-failed', 'sessionId': agent.session_id, 'detail': err},
        'Session DB update_system_prompt failed for session %s: %s. Subsequent turns will rebuild the system prompt and miss the prefix cache.',
        agent.session_id, err)


def failed_attempt(agent, attempt, of, retryable, error_type, summary, thread_ident=None):
    """The turn-recovery helper (id 68609706848), context from _client_log_context (agent/client_lifecycle.py).
    thread_ident: a fixed ident in place of the thread's own (a log that must be the same bytes on every run)."""
    thread = threading.current_thread()
    ident = thread.ident if thread_ident is None else thread_ident
    context = f'thread={thread.name}:{ident} provider={agent.provider} base_url={agent.base_url} model={agent.model}'
    log(LOOP, logging.WARNING, {'kind': 'attempt-failed', 'attempt': attempt, 'attempts': of, 'retryable': retryable, 'errorType': error_type,
                                'provider': agent.provider, 'baseUrl': agent.base_url, 'model': agent.model, 'summary': summary},
        'API call failed (%s) error_type=%s %s summary=%s', f'attempt {attempt}/{of}' + ('' if retryable else ', not retryable'), error_type, context, summary)


def retries_exhausted(agent, prefix, retries, summary, msgs, tokens):
    log(LOOP, logging.ERROR, {'kind': 'retries-exhausted', 'retries': retries, 'summary': summary, 'provider': agent.provider, 'model': agent.model,
                              'messages': msgs, 'roughTokens': tokens},
        '%sAPI call failed after %s retries. %s | provider=%s model=%s msgs=%s tokens=~%s', prefix, retries, summary, agent.provider, agent.model, msgs, f'{tokens:,}')


def preflight(agent, tokens, threshold, ctx):
    """agent/turn_context_compaction.py @ 03cc3ba3."""
    log('agent.turn_context', logging.INFO, {'kind': 'preflight', 'action': 'compress', 'roughTokens': tokens, 'threshold': threshold, 'model': agent.model, 'contextLength': ctx},
        'Preflight compression: ~%s tokens >= %s threshold (model %s, ctx %s)', f'{tokens:,}', f'{threshold:,}', agent.model, f'{ctx:,}')


def other_preflights(agent):
    log('agent.turn_context', logging.INFO, {'kind': 'preflight', 'action': 'deferred-to-real-usage', 'roughTokens': 131200, 'threshold': 120000, 'lastRealPrompt': 98765},
        'Skipping preflight compression: rough estimate ~%s >= %s is not anchored on real usage (last real provider prompt %s); deferring to the next response',
        f'{131200:,}', f'{120000:,}', f'{98765:,}')
    log('agent.turn_context', logging.INFO, {'kind': 'preflight', 'action': 'cooldown', 'seconds': 42, 'sessionId': agent.session_id},
        'Skipping preflight compression: same-session cooldown active (~%s seconds remaining, session %s)', int(42.7), agent.session_id)
    log('agent.turn_context', logging.WARNING, {'kind': 'preflight', 'action': 'insufficient-progress', 'roughTokens': 150000, 'roughTokensAfter': 148000},
        'Preflight compression made insufficient progress: ~%s -> ~%s request tokens; skipping additional passes', f'{150000:,}', f'{148000:,}')
    log('agent.turn_context', logging.INFO, {'kind': 'preflight', 'action': 'idle', 'seconds': 3605, 'roughTokens': 90000, 'threshold': 40000, 'sessionId': agent.session_id},
        'Idle compaction: %ss idle >= %ss, ~%s tokens > %s floor (last compaction produced ~%s) (session %s)',
        3605, 1800, f'{90000:,}', f'{40000:,}', 'n/a', agent.session_id)


def compaction_started(agent, messages, tokens):
    """agent/conversation_compression.py @ f193f020."""
    log('agent.conversation_compression', logging.INFO,
        {'kind': 'compaction-started', 'sessionId': agent.session_id, 'trigger': None, 'messages': messages, 'roughTokens': tokens, 'model': agent.model, 'focus': 'None'},
        'context compression started: session=%s messages=%d tokens=~%s model=%s focus=%r',
        agent.session_id or 'none', messages, f'{tokens:,}' if tokens else 'unknown', agent.model, None)


def compaction_done(agent, before, after, tokens, older=False):
    expected = {'kind': 'compaction-done', 'sessionId': agent.session_id, 'messagesBefore': before, 'messagesAfter': after, 'roughTokens': tokens, 'awaitingRealUsage': not older}
    if older:  # the form before awaiting_real_usage (quoted in #39548)
        log('agent.conversation_compression', logging.INFO, expected, 'context compression done: session=%s messages=%d->%d tokens=~%s',
            agent.session_id or 'none', before, after, f'{tokens:,}')
    else:
        log('agent.conversation_compression', logging.INFO, expected, 'context compression done: session=%s messages=%d->%d rough_tokens=~%s awaiting_real_usage=true',
            agent.session_id or 'none', before, after, f'{tokens:,}')


def filler(kib):
    """Lines of other loggers (no kind of ours): tool progress, as agent.tool_executor writes it."""
    line = 'tool terminal completed (0.86s, 1340 chars) ' + 'x' * 160
    for i in range(kib * 1024 // (len(line) + 80)):
        log('agent.tool_executor', logging.INFO, None, '%s #%d', line, i)


def noise():
    log('tools.terminal', logging.INFO, None, 'output of a command:\nline two of the message\n  API call #9: model=x provider=y in=1')
    try:
        raise RuntimeError('provider said: API call #3: model=m provider=p in=oops')
    except RuntimeError:
        log(LOOP, logging.ERROR, None, 'tool loop error', exc_info=True)


def untagged(agent):
    """A record from a thread with no session context (a gateway worker): no tag."""
    def run():
        clear_session_context()
        call(agent, 'B', prompt=2000, output=10, latency=0.4, rid='msg_01Untagged')
    t = threading.Thread(target=run, name='Thread-7 (gateway worker)')
    t.start()
    t.join()


def part_small(agent):
    set_session_context(agent.session_id)
    turn(agent, 'cli', 0, 'read notes.md')
    call(agent, 'B', prompt=14210, output=312, latency=4.62, cache_write=14190, rid='gen-1789730104-AbCdEfGh', upstream='Anthropic')
    call(agent, 'B', prompt=15102, output=88, latency=2.1, cache_read=14190, cache_write=890, rid='gen-1789730107-QrStUvWx', upstream='Amazon Bedrock')
    failed_attempt(agent, 1, 3, True, 'RateLimitError', 'HTTP 429: rate limited')
    noise()
    restore_lines(agent)
    call(agent, 'A', prompt=15200, output=40, latency=1.25, cache_read=15100)
    call(agent, 'B', prompt=None, latency=1.2)


def part_first(agent, child):
    set_session_context(agent.session_id)
    turn(agent, 'cli', 0, 'read notes.md and tell me what is open ' * 3)
    call(agent, 'B', prompt=14210, output=312, latency=4.62, cache_write=14190, rid='gen-1789730104-AbCdEfGh', upstream='Anthropic')
    call(agent, 'B', prompt=15102, output=88, latency=2.1, cache_read=14190, cache_write=890, rid='gen-1789730107-QrStUvWx', upstream='Amazon Bedrock')
    failed_attempt(agent, 1, 3, True, 'RateLimitError', 'HTTP 429: rate limited')
    failed_attempt(agent, 2, 3, False, 'AuthenticationError', 'HTTP 401: invalid key')
    noise()
    untagged(agent)
    turn(agent, 'cli', 47, 'now summarise\nthe open items')
    restore_lines(agent)
    preflight(agent, 130412, 120000, 200000)
    compaction_started(agent, 48, 130412)
    filler(1100)  # the handler rolls agent.log over in here: mid-turn
    agent.session_id = child
    set_session_context(child)  # as compress_context does after a rotation (#34089)
    compaction_done(agent, 48, 12, 41077)
    call(agent, 'B', prompt=38951, output=640, latency=4.3, cache_read=9120, cache_write=29811, rid='gen-1789733626-GhIjKlMn', upstream='Anthropic')
    call(agent, 'B', prompt=None, latency=1.2)
    call(agent, 'A', prompt=40100, output=55, latency=0.96, cache_read=38900)
    agent.base_url = 'https://openrouter.ai/api/v1'
    call(agent, 'C', prompt=40300, output=12, latency=1.04, cache_read=40100)
    call(agent, 'C', prompt=None, latency=0.3)
    other_preflights(agent)
    retries_exhausted(agent, '', 3, 'Read timed out. | upstream gave up', 23, 64432)
    compaction_done(agent, 30, 9, 20311, older=True)


def part_second(agent):
    set_session_context(agent.session_id)
    turn(agent, 'telegram', 12, 'and the rest?')
    call(agent, 'B', prompt=21000, output=99, latency=3.0, cache_read=20000, rid='msg_01Second', upstream='Anthropic')
    filler(1100)
    call(agent, 'B', prompt=21500, output=150, latency=2.6, cache_read=21000, cache_write=400, rid='msg_01Second2')


def main():
    home, part = sys.argv[1], sys.argv[2]
    max_mb = int(sys.argv[sys.argv.index('--max-mb') + 1]) if '--max-mb' in sys.argv else 5
    listener = setup(home, max_mb)
    agent = Agent('20260918_101500_a1b2c3', 'anthropic/claude-sonnet-4.6', 'openrouter', 'https://openrouter.ai/api/v1')
    if part == 'small':
        part_small(agent)
    elif part == 'first':
        part_first(agent, '20260918_112000_d4e5f6')
    elif part == 'second':
        part_second(Agent('20260918_112000_d4e5f6', 'anthropic/claude-sonnet-4.6', 'openrouter', 'https://openrouter.ai/api/v1'))
    else:
        raise SystemExit(f'unknown part {part}')
    listener.stop()
    logging.shutdown()
    print(json.dumps(truth))


if __name__ == '__main__':
    main()

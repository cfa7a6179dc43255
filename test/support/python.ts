// The Python that writes the tests' real SQLite files and logs. `npm test` names the interpreter
// itself once (scripts/run-tests.mjs): where `python3` is a version manager's shim (pyenv), each
// call through it costs about 0.35 s more, and the tests make dozens.
export const PYTHON = process.env.PROMPT_INSPECTOR_PYTHON || 'python3';

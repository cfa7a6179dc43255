// Request/response over any message transport, typed by a method map: the webview asks its host
// (the extension or the standalone report page) this way, and the extension asks its analysis
// worker. Imports nothing, so the webview bundle and the worker can both carry it.

/** Each method's params and result (an interface's keys, so it has no index signature to satisfy). */
export type RpcMethods<M> = { [K in keyof M]: { params: unknown; result: unknown } };

/** A call of one method: `method` is a discriminant, so a switch on it narrows `params`. */
export type RpcRequest<M extends RpcMethods<M>, K extends keyof M & string = keyof M & string> = {
  [P in K]: { type: 'request'; id: number; method: P; params: M[P]['params'] };
}[K];

/** The answer to the request with id `inReplyTo`: its result, or the message of what it threw. */
export interface RpcResponse {
  type: 'response';
  inReplyTo: number;
  result?: unknown;
  error?: string;
}

export type RpcHandlers<M extends RpcMethods<M>> = {
  [K in keyof M]: (params: M[K]['params']) => M[K]['result'] | Promise<M[K]['result']>;
};

/** Answers each request with its method's handler; what a handler throws goes back as `error`. */
export function serve<M extends RpcMethods<M>>(handlers: RpcHandlers<M>): (request: RpcRequest<M>) => Promise<RpcResponse> {
  return async ({ id, method, params }) => {
    try {
      // Requests cross a process or frame boundary untyped: a method nobody serves is an error too.
      if (!Object.hasOwn(handlers, method)) throw new Error(`unknown method ${String(method)}`);
      return { type: 'response', inReplyTo: id, result: await handlers[method](params) };
    } catch (e) {
      return { type: 'response', inReplyTo: id, error: e instanceof Error ? e.message : String(e) };
    }
  };
}

/** Calls over a transport's `post`; feed it every response. One pending promise per id. */
export class RpcClient<M extends RpcMethods<M>> {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly post: (request: RpcRequest<M>) => void) {}

  call<K extends keyof M & string>(method: K, params: M[K]['params']): Promise<M[K]['result']> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ type: 'request', id, method, params });
    });
  }

  /** Settles the call a response answers; returns false for one this client is not waiting on. */
  settle(response: RpcResponse): boolean {
    const p = this.pending.get(response.inReplyTo);
    if (!p) return false;
    this.pending.delete(response.inReplyTo);
    if (response.error !== undefined) p.reject(new Error(response.error));
    else p.resolve(response.result);
    return true;
  }

  /** Fails every call still waiting (the other side is gone). */
  failAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}

import type { ResponseFields } from './auth-result.js';

export interface FrameRequest {
  url: string;
  /** Only messages from this origin (the tenant's) are read. */
  origin: string;
  state: string;
  timeoutMs: number;
}

/**
 * Silent authentication: `/authorize` with `response_mode=web_message` and `prompt=none` in a hidden frame,
 * whose page posts `{type: "authorization_response", response}` to us. A message counts only when it comes
 * from that frame, from the tenant's origin, and carries our `state`; anything else is ignored.
 */
export function authorizeInFrame(request: FrameRequest, done: (response: ResponseFields) => void): void {
  const frame = document.createElement('iframe');
  frame.style.display = 'none';
  frame.setAttribute('aria-hidden', 'true');
  frame.title = 'Session check';
  let finished = false;
  const finish = (response: ResponseFields) => {
    if (finished) return;
    finished = true;
    window.removeEventListener('message', listen);
    clearTimeout(timer);
    frame.remove();
    done(response);
  };
  const listen = (event: MessageEvent) => {
    if (event.origin !== request.origin || event.source !== frame.contentWindow) return;
    const data = event.data as { type?: unknown; response?: ResponseFields } | null;
    if (data?.type !== 'authorization_response' || !data.response || data.response.state !== request.state) return;
    finish(data.response);
  };
  const timer = setTimeout(
    () => finish({ error: 'timeout', error_description: 'Timeout during executing web_message communication', state: request.state }),
    request.timeoutMs,
  );
  window.addEventListener('message', listen);
  frame.src = request.url;
  document.body.appendChild(frame);
}

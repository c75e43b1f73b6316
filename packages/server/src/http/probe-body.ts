/**
 * What a passing probe answers, `/livez`, `/readyz` and `{prefix}/health` alike, whether the app or
 * the bare server in front of it while the app loads (server.ts) answers: a module of its own, so
 * that the bare server reads it without loading the app's.
 */
export const probeOkBody = '{"status":"ok"}';

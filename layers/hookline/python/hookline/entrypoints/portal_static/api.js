// The API client: every call goes to the page's own origin with the session's token as a Bearer token, and an
// answer saying the session is over turns the page into the expiry page. Also what builds the calls' paths and
// query strings, and the page size the lists ask for.

import { showExpired } from "./expired.js";
import { state } from "./session.js";

export const PAGE_SIZE = 20; // items per page of a list

class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
    this.expired = false;
  }
}

// The answer's JSON, or null for a 204; an ApiError otherwise, its message fit to show the customer.
export async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${state.token}`, Accept: "application/json" };
  const init = { method, headers, credentials: "omit", cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (_) {
    throw new ApiError(0, "network", "The service could not be reached. Check your connection and try again.", null);
  }
  if (res.status === 204) return null;
  let data = null;
  try {
    data = await res.json();
  } catch (_) {
    data = null;
  }
  if (res.ok) {
    if (data === null) throw new ApiError(res.status, "malformed_answer", "The service sent an answer the page could not read. Try again.", null);
    return data;
  }
  const envelope = data && typeof data === "object" ? data.error : null;
  const message = (envelope && envelope.message) || (data && data.message) || `The request failed (HTTP ${res.status}).`;
  const error = new ApiError(res.status, envelope ? envelope.code : "", String(message), data);
  // 401: the session is expired, revoked or unknown. A 403 without our envelope is the gateway's authorizer saying no.
  if (res.status === 401 || (res.status === 403 && !envelope)) {
    error.expired = true;
    showExpired();
  }
  throw error;
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "";
}

export const enc = encodeURIComponent;

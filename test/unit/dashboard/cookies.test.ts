// When the dashboard's cookies are Secure (src/dashboard/cookies.ts): whenever the browser's side is
// HTTPS, whether TLS ends at the worker, at a proxy in front of it, or PUBLIC_BASE_URL says so.
import { describe, expect, it } from "vitest";
import { browserOnHttps } from "../../../src/dashboard/cookies";

describe("browserOnHttps", () => {
  it("is true for an https URL, a proxy's X-Forwarded-Proto: https, or an https PUBLIC_BASE_URL", () => {
    expect(browserOnHttps("https://app.example.com/dashboard/sign-in", undefined, undefined)).toBe(true);
    expect(browserOnHttps("http://10.0.0.5:8787/dashboard/sign-in", "https", undefined)).toBe(true);
    expect(browserOnHttps("http://10.0.0.5:8787/dashboard/sign-in", " HTTPS , http", undefined)).toBe(true);
    expect(browserOnHttps("http://10.0.0.5:8787/dashboard/sign-in", undefined, "https://app.example.com")).toBe(true);
    expect(browserOnHttps("http://10.0.0.5:8787/dashboard/sign-in", "http", "HTTPS://app.example.com/")).toBe(true);
  });

  it("is false on plain http with nothing saying otherwise, and a forwarded http cannot remove it", () => {
    expect(browserOnHttps("http://127.0.0.1:8787/dashboard/sign-in", undefined, undefined)).toBe(false);
    expect(browserOnHttps("http://127.0.0.1:8787/dashboard/sign-in", "http", "http://127.0.0.1:8787")).toBe(false);
    expect(browserOnHttps("http://127.0.0.1:8787/dashboard/sign-in", "http, https", undefined)).toBe(false);
    expect(browserOnHttps("https://app.example.com/dashboard/sign-in", "http", undefined)).toBe(true);
  });
});

// The reference page's inline Markdown (src/routes/public/reference.ts): code, strong and links on
// text escaped first, so a description can never become other markup.
import { describe, expect, it } from "vitest";
import { inlineMarkdown } from "../../../src/routes/public/reference";

const md = (text: string) => String(inlineMarkdown(text));

describe("inlineMarkdown", () => {
  it("renders `code`, **strong** and links to http(s) and same-site paths", () => {
    expect(md("Set `limit` to **20**; see [the docs](https://example.com/a?b=1) or [calls](/docs#Calls).")).toBe(
      'Set <code>limit</code> to <strong>20</strong>; see <a href="https://example.com/a?b=1">the docs</a> or <a href="/docs#Calls">calls</a>.',
    );
  });

  it("escapes everything else: no tag, attribute or script link gets through", () => {
    expect(md('<img src=x onerror="alert(1)"> & `<b>`')).toBe(
      "&#60;img src=x onerror=&#34;alert(1)&#34;&#62; &#38; <code>&#60;b&#62;</code>",
    );
    expect(md("[click](javascript:alert(1))")).toBe("[click](javascript:alert(1))");
    expect(md('[x](https://a.example/"onmouseover="y)')).not.toContain('"onmouseover');
    expect(md("a lone ` backtick and ** stars")).toBe("a lone ` backtick and ** stars");
  });
});

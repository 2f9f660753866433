/** @jsxImportSource hono/jsx */
// The sign-in page (no shell: nobody is signed in yet).
import type { FC } from "hono/jsx";
import { SIGN_IN_PATH } from "../session";
import { Document, ErrorSummary, type FieldErrors, TextField } from "../ui";

export const SignIn: FC<{ nonce: string; email?: string; next?: string; errors?: FieldErrors; message?: string }> = (p) => (
  <Document title="Sign in" nonce={p.nonce}>
    <main class="narrow" id="main">
      <div class="card">
        <h1>Sign in</h1>
        <ErrorSummary errors={p.errors} message={p.message} />
        <form method="post" action={SIGN_IN_PATH} novalidate>
          <input type="hidden" name="next" value={p.next ?? ""} />
          <TextField name="email" label="Email" type="email" value={p.email} errors={p.errors} required />
          <TextField name="password" label="Password" type="password" errors={p.errors} required />
          <p>
            <button type="submit">Sign in</button>
          </p>
        </form>
      </div>
    </main>
  </Document>
);

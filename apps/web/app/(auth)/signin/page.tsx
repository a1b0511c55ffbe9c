"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { Suspense, useState } from "react";
import { onFormSubmit } from "~/components/form";
import { safeReturnPath } from "~/components/return-to";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";

export default function SignInPage() {
  return (
    <Suspense>
      <SignIn />
    </Suspense>
  );
}

/** Signs in, then back to the page that asked (same site only), else to the console's home. */
function SignIn() {
  const back = safeReturnPath(useSearchParams().get("callbackUrl"));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(form: FormData) {
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    }).catch(() => undefined);
    if (result?.ok) {
      // A whole-page load, not the client router: `/` answers with the server's redirect to the
      // person's home, so the browser goes from this form straight to that page. (The router
      // rendered `/` itself first, a blank page for as long as the redirect took.)
      window.location.replace(back ?? "/");
      return;
    }
    setBusy(false);
    setError(
      result?.error === "CredentialsSignin"
        ? "That email and password do not match an account. Check them and try again."
        : result?.error?.startsWith("Too many")
          ? result.error
          : "Signing in failed. Check your connection and try again.",
    );
  }

  return (
    <form onSubmit={onFormSubmit(submit)} className={ui.stack} aria-labelledby="signin-heading">
      <title>Sign in · Switchboard</title>
      <h1 id="signin-heading">Sign in</h1>
      {error && (
        <p className={ui.formError} role="alert" data-testid="signin-error">
          {error}
        </p>
      )}
      <label>
        Email
        <input name="email" type="email" autoComplete="email" required data-testid="signin-email" />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          required
          data-testid="signin-password"
        />
      </label>
      <Button type="submit" disabled={busy} data-testid="signin-submit">
        {busy ? "Signing in…" : "Sign in"}
      </Button>
      <p className={ui.muted}>
        New here?{" "}
        <Link href={back ? `/signup?callbackUrl=${encodeURIComponent(back)}` : "/signup"}>
          Create an account
        </Link>
      </p>
    </form>
  );
}

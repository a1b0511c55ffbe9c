"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { Suspense, useState } from "react";
import { shownError } from "~/components/errors";
import { FieldError, invalidProps } from "~/components/field-error";
import { onFormSubmit } from "~/components/form";
import { safeReturnPath } from "~/components/return-to";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";

const fields = ["displayName", "email", "password"] as const;

export default function SignUpPage() {
  return (
    <Suspense>
      <SignUp />
    </Suspense>
  );
}

/** A new person starts on Chats (or goes back to the page that sent them to sign in). */
function SignUp() {
  const trpc = useTRPC();
  const router = useRouter();
  const back = safeReturnPath(useSearchParams().get("callbackUrl"));
  const signInHref = back ? `/signin?callbackUrl=${encodeURIComponent(back)}` : "/signin";
  const [signInError, setSignInError] = useState<string | null>(null);
  const [signingIn, setSigningIn] = useState(false);
  const signUp = useMutation(trpc.auth.signUp.mutationOptions());
  const error = shownError(signUp.error, fields);

  async function submit(form: FormData) {
    const input = {
      displayName: String(form.get("displayName") ?? ""),
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
    };
    setSignInError(null);
    try {
      await signUp.mutateAsync(input);
    } catch {
      return; // shown from signUp.error
    }
    // The account exists now; sign in with the same pair, exactly as the sign-in page does.
    setSigningIn(true);
    const result = await signIn("credentials", {
      email: input.email,
      password: input.password,
      redirect: false,
    }).catch(() => undefined);
    if (result?.ok) {
      router.replace(back ?? "/chats");
      router.refresh();
      return;
    }
    setSigningIn(false);
    setSignInError("Your account was created, but signing in failed. Sign in to continue.");
  }

  const busy = signUp.isPending || signingIn;
  return (
    <form onSubmit={onFormSubmit(submit)} className={ui.stack} aria-labelledby="signup-heading">
      <title>Create your account · Switchboard</title>
      <div>
        <h1 id="signup-heading">Create your account</h1>
        <p className={ui.muted}>
          You get your own number. Agents you add reach you only through what you allow.
        </p>
      </div>
      {(error || signInError) && (
        <p className={ui.formError} role="alert" data-testid="signup-error">
          {signUp.error?.data?.code === "conflict" ? (
            <>
              An account with this email exists — <Link href={signInHref}>sign in?</Link>
            </>
          ) : (
            (signInError ?? error?.message)
          )}
        </p>
      )}
      <label>
        Your name
        <input
          name="displayName"
          required
          maxLength={50}
          autoComplete="name"
          data-testid="signup-name"
          {...invalidProps("signup-name-error", error?.fields.displayName)}
        />
        <FieldError id="signup-name-error" message={error?.fields.displayName} />
      </label>
      <label>
        Email
        <input
          name="email"
          type="email"
          autoComplete="email"
          required
          data-testid="signup-email"
          {...invalidProps("signup-email-error", error?.fields.email)}
        />
        <FieldError id="signup-email-error" message={error?.fields.email} />
      </label>
      <label>
        <span>
          Password <span className={ui.hint}>at least 8 characters</span>
        </span>
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
          data-testid="signup-password"
          {...invalidProps("signup-password-error", error?.fields.password)}
        />
        <FieldError id="signup-password-error" message={error?.fields.password} />
      </label>
      <Button type="submit" disabled={busy} data-testid="signup-submit">
        {busy ? "Creating your account…" : "Create account"}
      </Button>
      <p className={ui.muted}>
        Already have an account? <Link href={signInHref}>Sign in</Link>
      </p>
    </form>
  );
}

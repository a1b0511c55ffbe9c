"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { useTRPC } from "~/trpc/client";

export default function SignUpPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const [signInError, setSignInError] = useState<string | null>(null);
  const signUp = useMutation(trpc.auth.signUp.mutationOptions());
  const error = shownError(signUp.error);

  async function submit(form: FormData) {
    const input = {
      displayName: String(form.get("displayName")),
      email: String(form.get("email")),
      password: String(form.get("password")),
    };
    try {
      await signUp.mutateAsync(input);
    } catch {
      return; // shown from signUp.error
    }
    const result = await signIn("credentials", {
      email: input.email,
      password: input.password,
      redirect: false,
    });
    if (result?.ok) router.push("/agents");
    else setSignInError("Your account was created, but signing in failed. Try signing in.");
  }

  return (
    <form onSubmit={onFormSubmit(submit)} className="stack">
      <h1>Create your account</h1>
      <p className="muted">
        You get your own number; agents you add reach you only through what you allow.
      </p>
      {(error || signInError) && (
        <p className="form-error" role="alert">
          {signInError ?? error?.message}
        </p>
      )}
      <label>
        Your name
        <input name="displayName" required maxLength={50} data-testid="signup-name" />
        {error?.fields.displayName && (
          <span className="field-error">{error.fields.displayName}</span>
        )}
      </label>
      <label>
        Email
        <input name="email" type="email" autoComplete="email" required data-testid="signup-email" />
        {error?.fields.email && <span className="field-error">{error.fields.email}</span>}
      </label>
      <label>
        Password <span className="hint">at least 8 characters</span>
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
          data-testid="signup-password"
        />
        {error?.fields.password && <span className="field-error">{error.fields.password}</span>}
      </label>
      <button type="submit" disabled={signUp.isPending} data-testid="signup-submit">
        {signUp.isPending ? "Creating…" : "Create account"}
      </button>
      <p className="muted">
        Already have an account? <Link href="/signin">Sign in</Link>
      </p>
    </form>
  );
}

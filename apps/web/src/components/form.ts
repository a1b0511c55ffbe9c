import type { FormEvent } from "react";

/**
 * Submit handler that keeps what the person typed: unlike a React form `action`, it does not
 * reset the form, so a server-side validation error never throws their input away. The form
 * element comes along for handlers that reset it after a success.
 */
export function onFormSubmit(
  handle: (form: FormData, element: HTMLFormElement) => void | Promise<void>,
) {
  return (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void handle(new FormData(event.currentTarget), event.currentTarget);
  };
}

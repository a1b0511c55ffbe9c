"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import {
  currentSubscription,
  pushSupported,
  subscribeThisBrowser,
  unsubscribeThisBrowser,
} from "~/components/push-subscription";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { TimeAgo } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";

const toggles = [
  { name: "newCard", label: "New cards", hint: "an agent asks you to decide" },
  { name: "expiryReminder", label: "Reminders", hint: "an hour before a card expires" },
  { name: "agentMessage", label: "Messages from agents", hint: "while no console tab is open" },
  { name: "ownerAlerts", label: "Owner alerts", hint: "your agent paused, a webhook failing" },
  { name: "showText", label: "Show message text in notifications", hint: "off: only who wrote" },
] as const;

/** The browser's own time zone, for quiet hours. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** Notifications: this browser on or off, what is pushed, quiet hours, and every device. */
export function NotificationSettingsCard({ vapidPublicKey }: { vapidPublicKey: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.settings.notifications.queryOptions());
  const devices = useQuery(trpc.settings.devices.queryOptions());
  const refresh = () => queryClient.invalidateQueries(trpc.settings.pathFilter());
  const update = useMutation(
    trpc.settings.updateNotifications.mutationOptions({ onSuccess: refresh }),
  );
  const remove = useMutation(trpc.settings.removeDevice.mutationOptions({ onSuccess: refresh }));
  const [thisEndpoint, setThisEndpoint] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [supported, setSupported] = useState(true);

  useEffect(() => {
    setSupported(pushSupported());
    void currentSubscription().then((sub) => setThisEndpoint(sub?.endpoint ?? null));
  }, []);

  const on = thisEndpoint !== null && (devices.data ?? []).some((d) => d.endpoint === thisEndpoint);
  const turnOn = async () => {
    if (!vapidPublicKey) return;
    setBusy(true);
    setProblem(await subscribeThisBrowser(vapidPublicKey).catch((e: Error) => e.message));
    setThisEndpoint((await currentSubscription())?.endpoint ?? null);
    await refresh();
    setBusy(false);
  };
  const turnOff = async () => {
    setBusy(true);
    await unsubscribeThisBrowser();
    setThisEndpoint(null);
    await refresh();
    setBusy(false);
  };
  // Quiet hours are saved in this browser's zone (known after hydration: the server has none);
  // hours saved from a browser elsewhere stay in that one's until saved here.
  const [zone, setZone] = useState<string | null>(null);
  useEffect(() => setZone(browserZone()), []);
  const current = settings.data;
  const error = problem ?? shownError(update.error ?? remove.error)?.message ?? null;

  return (
    <>
      <Card className={ui.stack} aria-labelledby="push-heading">
        <h2 id="push-heading">Notifications on this browser</h2>
        {!supported || !vapidPublicKey ? (
          <p className={ui.muted}>
            This browser cannot get notifications here (they need https, or localhost).
          </p>
        ) : (
          <div className={ui.row}>
            <p className={ui.muted} data-testid="push-state">
              {on ? "On: cards reach this browser." : "Off for this browser."}
            </p>
            {on ? (
              <Button variant="secondary" disabled={busy} onClick={() => void turnOff()}>
                Turn off
              </Button>
            ) : (
              <Button disabled={busy} onClick={() => void turnOn()}>
                Turn on notifications
              </Button>
            )}
          </div>
        )}
        <FormError message={error} testId="push-error" />
      </Card>

      {current && (
        <Card className={ui.stack} aria-labelledby="what-heading">
          <h2 id="what-heading">What reaches you</h2>
          {toggles.map((toggle) => (
            <label className={ui.check} key={toggle.name}>
              <input
                type="checkbox"
                checked={current[toggle.name]}
                onChange={(event) => update.mutate({ [toggle.name]: event.target.checked })}
              />
              <span>
                {toggle.label} <span className={ui.hint}>{toggle.hint}</span>
              </span>
            </label>
          ))}
          <form
            className={`${ui.row} ${ui.alignEnd}`}
            aria-labelledby="quiet-heading"
            onSubmit={(event) => {
              event.preventDefault();
              const form = new FormData(event.currentTarget);
              const from = String(form.get("quietFrom") ?? "");
              const to = String(form.get("quietTo") ?? "");
              update.mutate({
                quietFrom: from && to ? from : null,
                quietTo: from && to ? to : null,
                timeZone: browserZone(),
                quietHoldsCards: form.get("quietHoldsCards") === "on",
              });
            }}
          >
            <h3 id="quiet-heading" className={ui.visuallyHidden}>
              Quiet hours
            </h3>
            <label>
              <span>Quiet from</span>
              <input type="time" name="quietFrom" defaultValue={current.quietFrom ?? ""} />
            </label>
            <label>
              <span>to</span>
              <input type="time" name="quietTo" defaultValue={current.quietTo ?? ""} />
            </label>
            <label className={ui.check}>
              <input
                type="checkbox"
                name="quietHoldsCards"
                defaultChecked={current.quietHoldsCards}
              />
              <span>Hold cards too</span>
            </label>
            <Button type="submit" variant="secondary">
              Save quiet hours
            </Button>
            <p className={ui.hint} data-testid="quiet-zone">
              {!current.quietFrom
                ? `In ${zone ?? current.timeZone}.`
                : zone && zone !== current.timeZone
                  ? `Saved in ${current.timeZone}; saving again uses this browser's ${zone}.`
                  : `In ${current.timeZone}.`}{" "}
              Quiet hours hold everything but cards until they end.
            </p>
          </form>
        </Card>
      )}

      <Card className={ui.stack} aria-labelledby="devices-heading">
        <h2 id="devices-heading">Devices</h2>
        {(devices.data ?? []).length === 0 ? (
          <p className={ui.muted}>No device gets notifications yet.</p>
        ) : (
          <ul className={ui.stack} data-testid="push-devices">
            {(devices.data ?? []).map((device) => (
              <li key={device.endpoint} className={ui.row}>
                <span>
                  {device.label}
                  {device.endpoint === thisEndpoint && " (this browser)"}
                </span>
                <span className={ui.hint}>
                  added <TimeAgo iso={device.createdAt} />
                  {device.lastDeliveredAt && (
                    <>
                      {" "}
                      · last notified <TimeAgo iso={device.lastDeliveredAt} />
                    </>
                  )}
                </span>
                <Button
                  variant="secondary"
                  small
                  onClick={() => remove.mutate({ endpoint: device.endpoint })}
                  aria-label={`Remove ${device.label}, added ${new Date(device.createdAt).toLocaleDateString()}`}
                >
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}

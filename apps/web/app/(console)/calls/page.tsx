import "./calls.css";
import { CallList } from "./call-list";

export default function CallsPage() {
  return (
    <>
      <title>Calls · Switchboard</title>
      <div className="page-head">
        <div>
          <h1>Calls</h1>
          <p className="muted">
            Calls you were on, newest first, with your own summary and the transcript. Agents you
            granted <code>calls:read</code> receive your summary and the transcript (up to 32 KB)
            when a call ends; the others hear nothing.
          </p>
        </div>
      </div>
      <CallList />
    </>
  );
}

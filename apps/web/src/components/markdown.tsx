import type { Element, ElementContent, Root } from "hast";
import type { ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import { linkParts, safeHref } from "./link-parts";
import styles from "./markdown.module.css";
import bubble from "./ui/bubble.module.css";

/** What agent markdown may become; anything else is unwrapped to its text. */
const allowedElements = [
  "p",
  "br",
  "strong",
  "em",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "hr",
  "a",
  "img",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
];

/** Only http(s) addresses survive; `javascript:`, `data:`, relative paths and the rest become "". */
const urlTransform = (url: string) => safeHref(url) ?? "";

/** Bare web addresses in the text become links too, by the same rule as people's messages. */
function linkBareAddresses() {
  const visit = (node: Root | Element) => {
    node.children = node.children.flatMap((child): ElementContent[] => {
      if (child.type === "element") {
        if (child.tagName !== "a" && child.tagName !== "code") visit(child);
        return [child];
      }
      if (child.type !== "text") return child.type === "doctype" ? [] : [child];
      return linkParts(child.value).map(
        (part): ElementContent =>
          part.href
            ? {
                type: "element",
                tagName: "a",
                properties: { href: part.href },
                children: [{ type: "text", value: part.text }],
              }
            : { type: "text", value: part.text },
      );
    });
  };
  return (tree: Root) => visit(tree);
}

const heading = ({ children }: { children?: ReactNode }) => (
  <p>
    <strong>{children}</strong>
  </p>
);

const components: Components = {
  a: ({ href, children }) => {
    const target = href ? safeHref(href) : null;
    if (!target) return <span className={styles.inert}>{children}</span>;
    const host = new URL(target).host;
    const text = typeof children === "string" ? children : null;
    return (
      <>
        <a
          href={target}
          target="_blank"
          rel="noopener noreferrer nofollow"
          className={bubble.link}
          title={target}
        >
          {children}
        </a>
        {text !== target && text !== host && (
          <span className={styles.host} data-testid="link-host">
            {" "}
            ({host})
          </span>
        )}
      </>
    );
  },
  img: ({ src, alt }) => {
    const target = typeof src === "string" ? safeHref(src) : null;
    const label = `Image${alt ? `: ${alt}` : ""}`;
    return target ? (
      <>
        <a href={target} target="_blank" rel="noopener noreferrer nofollow" className={bubble.link}>
          {label}
        </a>
        <span className={styles.host}> ({new URL(target).host})</span>
      </>
    ) : (
      <span className={styles.inert}>{label}</span>
    );
  },
  h1: heading,
  h2: heading,
  h3: heading,
  h4: heading,
  h5: heading,
  h6: heading,
};

/**
 * An agent's message as markdown, safely: raw HTML is shown as the text it is, only http(s)
 * links work (opening in a new tab, telling the other site nothing, with their host shown beside
 * any link whose text hides it), images are links (the console fetches nothing an agent names),
 * and everything else is plain text.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className={styles.markdown} data-testid="markdown">
      <ReactMarkdown
        allowedElements={allowedElements}
        unwrapDisallowed
        urlTransform={urlTransform}
        rehypePlugins={[linkBareAddresses]}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}

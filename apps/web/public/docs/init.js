// Starts the API reference: loads Swagger UI from this origin, then renders the OpenAPI
// document named by #api-reference's data-spec-url. A file, not inline code, so the page works
// under a Content-Security-Policy of script-src 'self'. React puts this async script in <head>:
// from the browser's cache it can run before the body is parsed, so it waits for the document
// when #api-reference is not there yet (a revisit otherwise showed an empty reference).
(() => {
  // What axe found in Swagger UI's own markup, mended without forking it. With deep linking on,
  // an operation's path is a link inside the button that opens the operation (nested controls):
  // the path stays text, and opening an operation still sets the address's #fragment, so an
  // operation's address can still be shared.
  const accessibleMarkup = (system) => ({
    wrapComponents: {
      DeepLink: (Original) => (props) =>
        system.React.createElement(Original, { ...props, enabled: false }),
    },
  });

  // Swagger UI's form controls that have no name a screen reader can say, and their names.
  // Named as they appear (opening an operation renders its controls afresh).
  const controlNames = [
    ["select#servers", "Server"],
    ["select.examples-select-element", "Example"],
    ["textarea.body-param__text", "Request body"],
  ];
  function nameControls(root) {
    for (const [selector, name] of controlNames)
      for (const control of root.querySelectorAll(`${selector}:not([aria-label])`))
        control.setAttribute("aria-label", name);
  }

  function startReference() {
    const root = document.getElementById("api-reference");
    if (!root) return;
    new MutationObserver(() => nameControls(root)).observe(root, {
      childList: true,
      subtree: true,
    });
    const script = document.createElement("script");
    script.src = "/docs/assets/swagger-ui-bundle.js";
    script.onload = () => {
      window.SwaggerUIBundle({
        url: root.dataset.specUrl,
        domNode: root,
        deepLinking: true,
        tryItOutEnabled: true,
        persistAuthorization: true,
        displayOperationId: false,
        defaultModelsExpandDepth: 0,
        docExpansion: "list",
        validatorUrl: null,
        syntaxHighlight: { activated: true, theme: "obsidian" },
        plugins: [accessibleMarkup],
      });
    };
    document.head.appendChild(script);
  }
  if (document.readyState === "loading")
    document.addEventListener("DOMContentLoaded", startReference);
  else startReference();
})();

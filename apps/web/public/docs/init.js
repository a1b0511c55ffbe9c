// Starts the API reference: loads Swagger UI from this origin, then renders the OpenAPI
// document named by #api-reference's data-spec-url. A file, not inline code, so the page works
// under a Content-Security-Policy of script-src 'self'. React puts this async script in <head>:
// from the browser's cache it can run before the body is parsed, so it waits for the document
// when #api-reference is not there yet (a revisit otherwise showed an empty reference).
(() => {
  function startReference() {
    const root = document.getElementById("api-reference");
    if (!root) return;
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
        syntaxHighlight: { activated: true, theme: "agate" },
      });
    };
    document.head.appendChild(script);
  }
  if (document.readyState === "loading")
    document.addEventListener("DOMContentLoaded", startReference);
  else startReference();
})();

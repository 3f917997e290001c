// SQL migrations are imported as text so the compiled executable carries them.
declare module "*.sql" {
  const text: string;
  export default text;
}

declare module "*.md" {
  const text: string;
  export default text;
}

// Font files imported `with { type: "file" }`: a path Bun.file can read, also inside the executable.
declare module "*.ttf" {
  const path: string;
  export default path;
}

// The web app's stylesheet, imported `with { type: "text" }` so the executable serves it.
declare module "*.css" {
  const text: string;
  export default text;
}

// The web app's icon, imported `with { type: "text" }` so the executable serves it.
declare module "*.svg" {
  const text: string;
  export default text;
}

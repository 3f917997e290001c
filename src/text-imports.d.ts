// SQL migrations are imported as text so the compiled executable carries them.
declare module "*.sql" {
  const text: string;
  export default text;
}

declare module "*.md" {
  const text: string;
  export default text;
}

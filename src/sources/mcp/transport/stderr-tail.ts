/**
 * The last lines a stdio MCP server wrote to stderr, kept so that a server that exits during
 * start-up can say why ("missing API_KEY") in `/status` and the log instead of only "the
 * server closed the connection". Bounded in lines and in line length.
 */
export class StderrTail {
  private readonly kept: string[] = [];

  constructor(
    private readonly maxLines = 10,
    private readonly maxLineLength = 500,
  ) {}

  /** Keeps one line as written: scrub {@link lines} before they leave the process. */
  push(line: string): void {
    const trimmed = line.trimEnd();
    if (trimmed === "") return;
    this.kept.push(trimmed.length > this.maxLineLength ? `${trimmed.slice(0, this.maxLineLength)}…` : trimmed);
    if (this.kept.length > this.maxLines) this.kept.shift();
  }

  /** Forgets every kept line (a new start attempt begins). */
  clear(): void {
    this.kept.length = 0;
  }

  /** The kept lines, oldest first. */
  lines(): string[] {
    return [...this.kept];
  }
}

export async function main(argv: string[]): Promise<void> {
  await Promise.resolve();
  process.stdout.write(`${argv.length}\n`);
}

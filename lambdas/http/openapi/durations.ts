/** A whole number of seconds as the document writes a delay: `1 m`, `24 h`, `44 h 36 m`. */
export const durationText = (seconds: number) => {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const parts = [hours && `${hours} h`, minutes && `${minutes} m`, rest && `${rest} s`].filter(Boolean);
  return parts.length ? parts.join(' ') : '0 s';
};

// uniqueComponentNames reports every component whose name an earlier
// section of options.sections already uses: a generator that makes a
// type of each component, named after it, cannot have both.
export default function uniqueComponentNames(components, options, context) {
  const first = new Map();
  const results = [];
  for (const section of options.sections) {
    for (const name of Object.keys(components?.[section] ?? {})) {
      const other = first.get(name);
      if (other === undefined) {
        first.set(name, section);
        continue;
      }
      results.push({
        message: `${section}/${name}: ${other}/${name} has the same name, and a generator that makes a type of each cannot have both`,
        path: [...context.path, section, name],
      });
    }
  }
  return results;
}

import neostandard from 'neostandard'

export default [
  ...neostandard({
    ignores: ['node_modules/**', 'reports/**', 'test-output/**', '.cache/**']
  }),
  {
    // Lines a reader can see (STYLE.md 20): code wraps at 120; a long string or template stays whole.
    rules: {
      '@stylistic/max-len': ['error', {
        code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true
      }]
    }
  },
  {
    // The lab's, the servers' and the entry points' lines are whole at 120 columns, strings and templates
    // included.
    files: ['loadtest/**/*.js', 'loadtest/**/*.cjs', 'servers/**/*.js', 'servers/**/*.cjs', 'bin/**/*.js', 'index.js'],
    rules: {
      '@stylistic/max-len': ['error', { code: 120 }]
    }
  },
  {
    // A long function reads as a list of steps (STYLE.md 22): the lab's and the servers' at most 80 lines.
    files: ['loadtest/**/*.js', 'servers/**/*.js'],
    rules: {
      'max-lines-per-function': ['error', { max: 80 }]
    }
  }
]

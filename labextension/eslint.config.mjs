// The TypeScript of the card, the panel and the widget, linted as the Python is: the same
// length of function (tests/test_architecture.py holds Python's to 60 lines), and the
// recommended rules of ESLint and typescript-eslint. `make lint` runs it, and so does
// tests/test_labextension_shape.py where node_modules is installed.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["lib/**", "node_modules/**", "demo/demo.js", "../jupyter_plans/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["src/**/*.ts", "demo/**/*.ts"],
    rules: {
      // A field left out of a copy by destructuring (`{ isNew: _isNew, ...step }`) is not a slip.
      "@typescript-eslint/no-unused-vars": ["error", { varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // A function a reader holds in view: 60 lines of code, blank lines and comments aside.
      "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
);

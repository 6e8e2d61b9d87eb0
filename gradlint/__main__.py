from gradlint.cli import run

run()

from gradlint.cli import main

main()

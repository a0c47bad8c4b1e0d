from registry.cli import main

# Guarded: the service's scoring process imports the main module again, and must not run the CLI.
if __name__ == "__main__":
    main()

"""One module per ``mcpdex`` subcommand (or small group of related ones), imported lazily."""

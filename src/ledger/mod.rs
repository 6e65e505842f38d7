//! The action ledger: per session, every file the agent wrote or changed, with the analysis of
//! its content, so that a later call that executes it is judged by what it runs.

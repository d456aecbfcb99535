import Foundation
import PackagePlugin

/// Lists the system tables for ``SystemTables/all``: one table per file under the target's
/// `System/Tables/`, each file named as the type it declares. Adding a system table is adding
/// its file; the list is written at build time into `SystemTables+List.swift`, again whenever a
/// file comes or goes.
@main struct SystemTablesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles(withSuffix: "swift").map(\.url).filter { $0.path.contains("/System/Tables/") }
        let types = files.map { $0.deletingPathExtension().lastPathComponent }.sorted()
        let output = context.pluginWorkDirectoryURL.appending(path: "SystemTables+List.swift")
        // (A shell the system has writes the file: a tool built from source would be one more
        // executable to compile before the target.)
        let script = """
            out=$1; shift
            {
              echo '// Written at build time by SystemTablesPlugin from the files under System/Tables/.'
              echo 'extension SystemTables {'
              echo '    static let all: [any SystemTable.Type] = ['
              for table in "$@"; do echo "        $table.self,"; done
              echo '    ]'
              echo '}'
            } > "$out"
            """
        return [
            .buildCommand(
                displayName: "Listing \(types.count) system tables", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", output.path] + types, inputFiles: files, outputFiles: [output])
        ]
    }
}

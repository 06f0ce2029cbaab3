import com.almworks.sqlite4java.SQLiteConnection;
import java.io.File;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sets DynamoDB Local's database file (SQLite) to full auto-vacuum and compacts it, run by
 * engine-file-vacuum.ts while no engine has the file open. SQLite leaves a deleted row's bytes in
 * its free pages; with full auto-vacuum every commit moves pages over the freed ones and truncates
 * the file, so a destroyed credential's ciphertext does not stay readable in the file. The
 * setting lives in the file's header: a new file gets it before the engine makes its tables.
 */
public class EngineFileVacuum {
  public static void main(String[] args) throws Exception {
    Logger.getLogger("com.almworks.sqlite4java").setLevel(Level.OFF);
    for (String path : args) {
      SQLiteConnection db = new SQLiteConnection(new File(path));
      db.open(true);
      try {
        db.exec("PRAGMA secure_delete = ON");
        db.exec("PRAGMA auto_vacuum = FULL");
        // A new file has no header until something is written: a table made and dropped writes it.
        db.exec("CREATE TABLE IF NOT EXISTS engine_file_vacuum (x)");
        db.exec("DROP TABLE engine_file_vacuum");
        db.exec("VACUUM");
      } finally {
        db.dispose();
      }
    }
  }
}

package pulumistate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
)

// storedToken returns the access token `pulumi login` stored for the
// service at base, "" when there is none. It reads the CLI's credentials
// file as the sdk's workspace.GetStoredCredentials finds and reads it; a
// missing or empty file holds no token.
func storedToken(base string) (string, error) {
	path, err := credentialsFile()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading '%s': %w", path, err)
	}
	var creds struct {
		Accounts map[string]struct {
			AccessToken string `json:"accessToken"`
		} `json:"accounts"`
		// The map of CLIs older than accounts; newer ones write both.
		AccessTokens map[string]string `json:"accessTokens"`
		// Present when PULUMI_CREDENTIAL_STORE had the CLI encrypt the
		// file with a key in an OS credential store.
		Encrypted *int `json:"$pulumiSecureStore"`
	}
	if err := json.Unmarshal(data, &creds); err != nil {
		return "", fmt.Errorf("invalid Pulumi credentials file '%s': %w", path, err)
	}
	if creds.Encrypted != nil {
		return "", fmt.Errorf("the Pulumi credentials file '%s' is encrypted, which driftdeck cannot read: set PULUMI_ACCESS_TOKEN", path)
	}
	if a, ok := creds.Accounts[base]; ok {
		return a.AccessToken, nil
	}
	return creds.AccessTokens[base], nil
}

// credentialsFile is credentials.json in $PULUMI_CREDENTIALS_PATH, else in
// $PULUMI_HOME, else in ~/.pulumi.
func credentialsFile() (string, error) {
	dir := os.Getenv("PULUMI_CREDENTIALS_PATH")
	if dir == "" {
		dir = os.Getenv("PULUMI_HOME")
	}
	if dir == "" {
		u, err := user.Current()
		if err != nil {
			return "", fmt.Errorf("getting current user: %w", err)
		}
		if u.HomeDir == "" {
			return "", errors.New("could not find user home directory, set PULUMI_HOME")
		}
		dir = filepath.Join(u.HomeDir, ".pulumi")
	}
	return filepath.Join(dir, "credentials.json"), nil
}
